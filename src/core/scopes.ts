export const SCOPES = ['read', 'scan:write', 'finding:write', 'fix:write', 'pr:write'] as const;
export type Scope = (typeof SCOPES)[number];

export function parseScopes(list: string): Scope[] {
  const scopes = list.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new Error(`unknown scope(s): ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  if (!scopes.length) throw new Error('at least one scope is required');
  return [...new Set(scopes)] as Scope[];
}

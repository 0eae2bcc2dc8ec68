import { createContext, useContext } from 'react';
import type { Role, SessionOrganization } from '../api/types.ts';

export const OrganizationContext = createContext<SessionOrganization | null>(null);

/** The organization the current page works in (from the /orgs/:orgId path). */
export function useOrganization(): SessionOrganization {
  const org = useContext(OrganizationContext);
  if (!org) throw new Error('useOrganization outside an organization page');
  return org;
}

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };
export const atLeast = (role: Role, wanted: Role) => RANK[role] >= RANK[wanted];
export const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];

/** API key scopes each role may hand out (the console API's rule: only those the caller's role has). */
export const ALL_SCOPES = ['read', 'scan:write', 'finding:write', 'fix:write', 'pr:write'] as const;
export type Scope = (typeof ALL_SCOPES)[number];
export function scopesOf(role: Role): readonly Scope[] {
  return role === 'viewer' ? ['read'] : ALL_SCOPES;
}

import type { Scope } from './scopes.ts';

/** Who is calling: one API key of one organization. */
export interface Principal {
  orgId: string;
  keyId: string;
  scopes: Scope[];
}

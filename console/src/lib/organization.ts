import { createContext, useContext } from 'react';
import type { SessionOrganization } from '../api/types.ts';
import { ROLES, SCOPES, type Role, type Scope } from '../api/vocabulary.ts';

export const OrganizationContext = createContext<SessionOrganization | null>(null);

/** The organization the current page works in (from the /orgs/:orgId path). */
export function useOrganization(): SessionOrganization {
  const org = useContext(OrganizationContext);
  if (!org) throw new Error('useOrganization outside an organization page');
  return org;
}

/** Whether `role` is at least `wanted` (ROLES is highest first). */
export const atLeast = (role: Role, wanted: Role) => ROLES.indexOf(role) <= ROLES.indexOf(wanted);

/** API key scopes each role may hand out (the console API's rule: only those the caller's role has). */
export function scopesOf(role: Role): readonly Scope[] {
  return role === 'viewer' ? ['read'] : SCOPES;
}

import { SCOPES, type Scope } from './scopes.ts';

/** Highest first: a role can do everything the roles after it can. */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;

export type Role = (typeof ROLES)[number];

export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);

/** Whether `role` is at least `least`. */
export const atLeast = (role: Role, least: Role) => ROLES.indexOf(role) <= ROLES.indexOf(least);

/** What a person of this role may do through the API, in the console or with a key they make. */
export function scopesOf(role: Role): Scope[] {
  return role === 'viewer' ? ['read'] : [...SCOPES];
}

/** API keys and members are managed by admins and owners. */
export const MANAGES_ORGANIZATION: Role = 'admin';

import type { Kysely } from 'kysely';
import { decoyHash, hashPassword, randomToken, tokenHash, verifyPassword } from '../crypto/passwords.ts';
import { newId, nowIso } from '../ids.ts';
import {
  deleteExpiredSessions,
  deleteMembership,
  deleteSession,
  deleteSessionsOf,
  insertSession,
  insertUser,
  membersOf,
  membershipsOf,
  ownerCount,
  roleIn,
  sessionByTokenHash,
  setUserDisabledAt,
  touchSession,
  upsertMembership,
  userByEmail,
  userById,
  type Member,
  type Membership,
  type StoredUser,
} from '../store/accounts.ts';
import type { Database } from '../store/schema.ts';
import { errors, notFound, unauthorized } from './errors.ts';
import type { Principal } from './principal.ts';
import { atLeast, scopesOf, type Role } from './roles.ts';
import { passwordProblem } from './password-strength.ts';
import { reserveSignIn, signInSubjects, signInSucceeded } from './sign-in-limits.ts';

export type { Member, Membership, StoredUser };

/** A session stays alive this long after its last use. */
export const SESSION_IDLE_MS = 12 * 60 * 60_000;
/** How stale a session's `last_seen_at` may get before a request refreshes it; saves a write on every call. */
const TOUCH_RESOLUTION_MS = 60_000;

const normalEmail = (email: string) => email.trim().toLowerCase();
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export async function createUser(db: Kysely<Database>, input: { email: string; password: string | null; name?: string | null }): Promise<StoredUser> {
  const email = normalEmail(input.email);
  if (!EMAIL.test(email)) throw new Error(`"${input.email}" is not an email address`);
  const weakness = input.password === null ? null : passwordProblem(input.password, email);
  if (weakness) throw new Error(weakness);
  if (await userByEmail(db, email)) throw new Error(`a user with the email ${email} already exists`);
  return insertUser(db, {
    id: newId(),
    email,
    name: input.name ?? null,
    password_hash: input.password === null ? null : await hashPassword(input.password),
    disabled_at: null,
    created_at: nowIso(),
  });
}

export async function setUserDisabled(db: Kysely<Database>, email: string, disabled: boolean): Promise<StoredUser> {
  const user = await userByEmail(db, email);
  if (!user) throw new Error(`no user with the email ${normalEmail(email)}`);
  const at = disabled ? (user.disabled_at ?? nowIso()) : null;
  await setUserDisabledAt(db, user.id, at);
  // A disabled user is signed out everywhere at once.
  if (disabled) await deleteSessionsOf(db, user.id);
  const { password_hash: _hash, ...shown } = user;
  return { ...shown, disabled_at: at };
}

/** Gives a user a role in an organization, or changes it; the last owner cannot be demoted. */
export async function setMembership(db: Kysely<Database>, orgId: string, userId: string, role: Role): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const current = await roleIn(trx, orgId, userId);
    if (current === 'owner' && role !== 'owner' && (await ownerCount(trx, orgId)) <= 1) throw errors.lastOwner();
    await upsertMembership(trx, { org_id: orgId, user_id: userId, role, created_at: nowIso() });
  });
}

export async function addMember(db: Kysely<Database>, orgId: string, email: string, role: Role): Promise<Member> {
  const user = await userByEmail(db, email);
  if (!user) throw notFound('User');
  if (await roleIn(db, orgId, user.id)) throw errors.alreadyMember(user.email);
  await setMembership(db, orgId, user.id, role);
  return (await membersOf(db, orgId)).find((m) => m.user.id === user.id)!;
}

export async function changeMemberRole(db: Kysely<Database>, orgId: string, userId: string, role: Role): Promise<Member> {
  if (!(await roleIn(db, orgId, userId))) throw notFound('Member');
  await setMembership(db, orgId, userId, role);
  return (await membersOf(db, orgId)).find((m) => m.user.id === userId)!;
}

export async function removeMember(db: Kysely<Database>, orgId: string, userId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const role = await roleIn(trx, orgId, userId);
    if (!role) throw notFound('Member');
    if (role === 'owner' && (await ownerCount(trx, orgId)) <= 1) throw errors.lastOwner();
    await deleteMembership(trx, orgId, userId);
  });
}

export { membersOf, membershipsOf, userById };

/** A signed-in browser, as a request finds it. */
export interface SessionPrincipal {
  sessionId: string;
  user: StoredUser;
  csrfToken: string;
}

/**
 * Checks an email and password and opens a session. Unknown emails cost the same scrypt as known ones, and
 * every refusal says the same thing, so neither the timing nor the answer tells which emails exist.
 */
export async function signIn(
  db: Kysely<Database>,
  input: { email: string; password: string; address: string },
): Promise<{ token: string; session: SessionPrincipal }> {
  const email = normalEmail(input.email);
  const subjects = signInSubjects(email, input.address);
  await reserveSignIn(db, subjects);
  const user = await userByEmail(db, email);
  const matches = await verifyPassword(input.password, user?.password_hash ?? (await decoyHash()));
  if (!user || !user.password_hash || !matches || user.disabled_at) throw unauthorized('Wrong email or password');
  await signInSucceeded(db, subjects);
  return openSession(db, user);
}

/** A new session for a user whose identity is established (password or OpenID Connect). */
export async function openSession(db: Kysely<Database>, user: StoredUser): Promise<{ token: string; session: SessionPrincipal }> {
  const token = randomToken();
  const now = Date.now();
  const session = {
    id: newId(),
    user_id: user.id,
    token_hash: tokenHash(token),
    csrf_token: randomToken(),
    created_at: new Date(now).toISOString(),
    last_seen_at: new Date(now).toISOString(),
    expires_at: new Date(now + SESSION_IDLE_MS).toISOString(),
  };
  await insertSession(db, session);
  await deleteExpiredSessions(db, session.created_at);
  const { password_hash: _hash, ...shown } = user as StoredUser & { password_hash?: string | null };
  return { token, session: { sessionId: session.id, user: shown, csrfToken: session.csrf_token } };
}

/** The live session a cookie's token names, kept alive by this use; undefined when unknown, expired or its user disabled. */
export async function sessionOf(db: Kysely<Database>, token: string): Promise<SessionPrincipal | undefined> {
  const found = await sessionByTokenHash(db, tokenHash(token));
  const now = Date.now();
  if (!found || found.user.disabled_at || Date.parse(found.session.expires_at) <= now) return undefined;
  if (now - Date.parse(found.session.last_seen_at) > TOUCH_RESOLUTION_MS) {
    await touchSession(db, found.session.id, new Date(now).toISOString(), new Date(now + SESSION_IDLE_MS).toISOString());
  }
  return { sessionId: found.session.id, user: found.user, csrfToken: found.session.csrf_token };
}

export const signOut = deleteSession;
export const signOutEverywhere = deleteSessionsOf;

/** The user's role in the organization, refused as not found when not a member (its existence is not revealed). */
export async function requireRole(db: Kysely<Database>, orgId: string, userId: string, least: Role): Promise<Role> {
  const role = await roleIn(db, orgId, userId);
  if (!role) throw notFound('Organization');
  if (!atLeast(role, least)) throw errors.insufficientRole(least);
  return role;
}

/**
 * A console session acting in one of its user's organizations, as the API sees a caller: the role's
 * scopes, and in place of a key the user (shown by `/me` as a key named after the session).
 */
export async function sessionPrincipal(db: Kysely<Database>, session: SessionPrincipal, orgId: string): Promise<Principal | undefined> {
  const membership = (await membershipsOf(db, session.user.id)).find((m) => m.organization.id === orgId);
  if (!membership) return undefined;
  const scopes = scopesOf(membership.role);
  return {
    orgId,
    keyId: session.user.id,
    userId: session.user.id,
    scopes,
    organization: membership.organization,
    apiKey: {
      id: session.user.id,
      org_id: orgId,
      name: `console session of ${session.user.email}`,
      key_prefix: 'session',
      scopes,
      created_at: session.user.created_at,
      last_used_at: null,
      revoked_at: null,
      created_by_user_id: session.user.id,
      expires_at: null,
    },
  };
}

/**
 * A session for the person an identity provider vouches for: the user with that email, or a new one
 * without a password, who sees no organization until an admin adds them.
 */
export async function signInWithIdentity(db: Kysely<Database>, identity: { email: string; name: string | null }): Promise<{ token: string; session: SessionPrincipal }> {
  const known = await userByEmail(db, identity.email);
  if (known?.disabled_at) throw unauthorized('This account is disabled');
  return openSession(db, known ?? (await createUser(db, { email: identity.email, password: null, name: identity.name })));
}

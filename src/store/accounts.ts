import { sql, type Kysely } from 'kysely';
import { DEVICE_AUTHORIZATION_STATUS, type DeviceAuthorizationStatus } from '../core/states/device-authorization-status.ts';
import type { Database, DeviceAuthorizationRow, LoginAttemptsTable, Role, UserRow, UserSessionsTable } from './schema.ts';
import type { OrganizationName } from './api-keys.ts';
import { isPostgres } from './dialect.ts';

/** A user as shown: everything but the password hash. */
export type StoredUser = Omit<UserRow, 'password_hash'>;

const withoutHash = ({ password_hash: _hash, ...user }: UserRow): StoredUser => user;

export async function insertUser(db: Kysely<Database>, user: UserRow): Promise<StoredUser> {
  await db.insertInto('users').values(user).execute();
  return withoutHash(user);
}

/** The user with this email (compared case-insensitively: stored lower-case), hash included for sign-in. */
export async function userByEmail(db: Kysely<Database>, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
}

export async function userById(db: Kysely<Database>, id: string): Promise<StoredUser | undefined> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row && withoutHash(row);
}

export async function allUsers(db: Kysely<Database>): Promise<(StoredUser & { organizations: { slug: string; role: Role }[] })[]> {
  const users = await db.selectFrom('users').selectAll().orderBy('created_at').orderBy('email').execute();
  const memberships = await db
    .selectFrom('memberships')
    .innerJoin('organizations', 'organizations.id', 'memberships.org_id')
    .select(['memberships.user_id', 'organizations.slug', 'memberships.role'])
    .orderBy('organizations.slug')
    .execute();
  return users.map((u) => ({ ...withoutHash(u), organizations: memberships.filter((m) => m.user_id === u.id).map(({ slug, role }) => ({ slug, role })) }));
}

export async function setUserDisabledAt(db: Kysely<Database>, userId: string, at: string | null): Promise<void> {
  await db.updateTable('users').set({ disabled_at: at }).where('id', '=', userId).execute();
}

export interface Membership {
  organization: OrganizationName;
  role: Role;
}

export async function membershipsOf(db: Kysely<Database>, userId: string): Promise<Membership[]> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('organizations', 'organizations.id', 'memberships.org_id')
    .select(['organizations.id', 'organizations.name', 'organizations.slug', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .orderBy('organizations.name')
    .execute();
  return rows.map(({ role, ...organization }) => ({ organization, role }));
}

export interface Member {
  user: Pick<StoredUser, 'id' | 'email' | 'name'>;
  role: Role;
  added_at: string;
}

export async function membersOf(db: Kysely<Database>, orgId: string): Promise<Member[]> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.email', 'users.name', 'memberships.role', 'memberships.created_at'])
    .where('memberships.org_id', '=', orgId)
    .orderBy('users.email')
    .execute();
  return rows.map(({ role, created_at, ...user }) => ({ user, role, added_at: created_at }));
}

export async function roleIn(db: Kysely<Database>, orgId: string, userId: string): Promise<Role | undefined> {
  const row = await db.selectFrom('memberships').select('role').where('org_id', '=', orgId).where('user_id', '=', userId).executeTakeFirst();
  return row?.role;
}

export async function upsertMembership(db: Kysely<Database>, membership: { org_id: string; user_id: string; role: Role; created_at: string }): Promise<void> {
  await db
    .insertInto('memberships')
    .values(membership)
    .onConflict((oc) => oc.columns(['org_id', 'user_id']).doUpdateSet({ role: membership.role }))
    .execute();
}

export async function deleteMembership(db: Kysely<Database>, orgId: string, userId: string): Promise<void> {
  await db.deleteFrom('memberships').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
}

/**
 * How many owners the organization has. Inside a transaction on PostgreSQL the owners' rows stay locked
 * until it ends, so two owners demoting each other at once cannot both pass the count (SQLite has one
 * writer at a time already).
 */
export async function ownerCount(db: Kysely<Database>, orgId: string): Promise<number> {
  const owners = db.selectFrom('memberships').select('user_id').where('org_id', '=', orgId).where('role', '=', 'owner');
  return (await (isPostgres(db) ? owners.forUpdate() : owners).execute()).length;
}

export async function insertSession(db: Kysely<Database>, session: UserSessionsTable): Promise<void> {
  await db.insertInto('user_sessions').values(session).execute();
}

/** The live session with this token hash, with its user. */
export async function sessionByTokenHash(db: Kysely<Database>, tokenHash: string): Promise<{ session: UserSessionsTable; user: StoredUser } | undefined> {
  const row = await db
    .selectFrom('user_sessions')
    .innerJoin('users', 'users.id', 'user_sessions.user_id')
    .selectAll('user_sessions')
    .select(['users.email', 'users.name', 'users.disabled_at', 'users.created_at as user_created_at'])
    .where('user_sessions.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const { email, name, disabled_at, user_created_at, ...session } = row;
  return { session, user: { id: session.user_id, email, name, disabled_at, created_at: user_created_at } };
}

export async function touchSession(db: Kysely<Database>, sessionId: string, at: string, expiresAt: string): Promise<void> {
  await db.updateTable('user_sessions').set({ last_seen_at: at, expires_at: expiresAt }).where('id', '=', sessionId).execute();
}

export async function deleteSession(db: Kysely<Database>, sessionId: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('id', '=', sessionId).execute();
}

export async function deleteSessionsOf(db: Kysely<Database>, userId: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('user_id', '=', userId).execute();
}

export async function deleteExpiredSessions(db: Kysely<Database>, now: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('expires_at', '<=', now).execute();
}

export async function loginAttempt(db: Kysely<Database>, subject: string): Promise<LoginAttemptsTable | undefined> {
  return db.selectFrom('login_attempts').selectAll().where('subject', '=', subject).executeTakeFirst();
}

/**
 * Counts one attempt for the subject in a single guarded statement, so parallel attempts cannot all pass:
 * refused (false) while the subject is locked or already has `limit` attempts in its window. The attempt
 * that reaches the limit locks the subject until `lockedUntil`. A window older than `windowStart` starts afresh.
 */
export async function takeAttempt(
  db: Kysely<Database>,
  subject: string,
  limit: number,
  at: { now: string; windowStart: string; lockedUntil: string },
): Promise<boolean> {
  const stale = sql`login_attempts.window_started_at <= ${at.windowStart}`;
  const counted = sql`case when ${stale} then 1 else login_attempts.failures + 1 end`;
  const result = await sql<{ failures: number }>`
    insert into login_attempts (subject, failures, window_started_at, locked_until)
    values (${subject}, 1, ${at.now}, ${limit <= 1 ? at.lockedUntil : null})
    on conflict (subject) do update set
      failures = ${counted},
      window_started_at = case when ${stale} then ${at.now} else login_attempts.window_started_at end,
      locked_until = case when ${counted} >= ${limit} then ${at.lockedUntil} else null end
    where (login_attempts.locked_until is null or login_attempts.locked_until <= ${at.now})
      and (${stale} or login_attempts.failures < ${limit})
    returning failures`.execute(db);
  return result.rows.length === 1;
}

/** Forgets counts whose window and lock have both passed: they would start afresh anyway. */
export async function forgetStaleAttempts(db: Kysely<Database>, at: { now: string; windowStart: string }): Promise<void> {
  await db
    .deleteFrom('login_attempts')
    .where('window_started_at', '<=', at.windowStart)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', at.now)]))
    .execute();
}

/** Gives back one attempt taken by takeAttempt (it turned out not to count), lifting the lock it may have set. */
export async function returnAttempt(db: Kysely<Database>, subject: string, limit: number): Promise<void> {
  await sql`update login_attempts set
      failures = case when failures > 0 then failures - 1 else 0 end,
      locked_until = case when failures - 1 < ${limit} then null else locked_until end
    where subject = ${subject}`.execute(db);
}

export async function clearLoginAttempts(db: Kysely<Database>, subject: string): Promise<void> {
  await db.deleteFrom('login_attempts').where('subject', '=', subject).execute();
}

export async function insertDeviceAuthorization(db: Kysely<Database>, row: DeviceAuthorizationRow): Promise<void> {
  await db.insertInto('device_authorizations').values(row).execute();
}

export async function deviceAuthorizationByDeviceCodeHash(db: Kysely<Database>, hash: string): Promise<DeviceAuthorizationRow | undefined> {
  return db.selectFrom('device_authorizations').selectAll().where('device_code_hash', '=', hash).executeTakeFirst();
}

export async function deviceAuthorizationByUserCode(db: Kysely<Database>, userCode: string): Promise<DeviceAuthorizationRow | undefined> {
  return db.selectFrom('device_authorizations').selectAll().where('user_code', '=', userCode).executeTakeFirst();
}

/**
 * Moves an authorization to `to` only from a status the machine allows it from, so two approvals, or two
 * collections, cannot both win; returns whether it moved.
 */
export async function moveDeviceAuthorization(
  db: Kysely<Database>,
  id: string,
  to: DeviceAuthorizationStatus,
  changes: Partial<Omit<DeviceAuthorizationRow, 'id' | 'status'>> = {},
): Promise<boolean> {
  const sources = DEVICE_AUTHORIZATION_STATUS.sourcesOf(to);
  if (!sources.length) return false;
  const result = await db
    .updateTable('device_authorizations')
    .set({ ...changes, status: to })
    .where('id', '=', id)
    .where('status', 'in', sources)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function setDevicePolledAt(db: Kysely<Database>, id: string, at: string, intervalSeconds: number): Promise<void> {
  await db.updateTable('device_authorizations').set({ last_polled_at: at, interval_seconds: intervalSeconds }).where('id', '=', id).execute();
}

/** How many device authorizations wait for approval, from one client address and in all. */
export async function pendingDeviceAuthorizations(db: Kysely<Database>, address: string): Promise<{ fromAddress: number; inAll: number }> {
  const row = await db
    .selectFrom('device_authorizations')
    .select((eb) => [eb.fn.countAll<number | string>().as('in_all'), eb.fn.sum<number | string | null>(eb.case().when('requested_from', '=', address).then(1).else(0).end()).as('from_address')])
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { fromAddress: Number(row.from_address ?? 0), inAll: Number(row.in_all) };
}

export async function deleteExpiredDeviceAuthorizations(db: Kysely<Database>, before: string): Promise<void> {
  await db.deleteFrom('device_authorizations').where('expires_at', '<=', before).execute();
}

import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import { randomToken, tokenHash } from '../crypto/passwords.ts';
import { newId } from '../ids.ts';
import {
  deleteExpiredDeviceAuthorizations,
  deviceAuthorizationByDeviceCodeHash,
  deviceAuthorizationByUserCode,
  insertDeviceAuthorization,
  moveDeviceAuthorization,
  pendingDeviceAuthorizations,
  roleIn,
  setDevicePolledAt,
  userById,
} from '../store/accounts.ts';
import type { Database, DeviceAuthorizationRow } from '../store/schema.ts';
import { createApiKey } from './api-keys.ts';
import { errors, invalidState, notFound } from './errors.ts';
import { scopesOf } from './roles.ts';
import { returnAttempts, takeAttempts } from './sign-in-limits.ts';

// OAuth 2.0 Device Authorization Grant (RFC 8628), as the published CLI's `auth login` speaks it. A code
// approved in the console turns into an API key of the chosen organization, minted when the device
// collects it (so a device that never comes back leaves no key behind), named after the device and
// holding the approving user's role's scopes.

export const DEVICE_CODE_LIFETIME_SECONDS = 900;
export const POLL_INTERVAL_SECONDS = 5;
/** RFC 8628 §3.5: each `slow_down` adds five seconds to the interval. */
const SLOW_DOWN_STEP_SECONDS = 5;
/** RFC 8628 §6.1: letters only, no vowels (no words), none easily confused; 20^8 ≈ 2^34 codes. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';

export const DEVICE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/** An RFC 8628 §3.5 / RFC 6749 §5.2 error of the token endpoint. */
export type DeviceTokenErrorCode = 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant' | 'invalid_request' | 'unsupported_grant_type';

export class DeviceTokenError extends Error {
  readonly error: DeviceTokenErrorCode;

  constructor(error: DeviceTokenErrorCode, description: string) {
    super(description);
    this.error = error;
  }
}

function newUserCode(): string {
  const letters = Array.from(crypto.randomBytes(8), (b) => USER_CODE_ALPHABET[b % USER_CODE_ALPHABET.length]).join('');
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

/** What a person types: any case, with or without the dash or spaces. */
export function normalUserCode(typed: string): string {
  const letters = typed.toUpperCase().replace(/[^A-Z]/g, '');
  return letters.length === 8 ? `${letters.slice(0, 4)}-${letters.slice(4)}` : typed.toUpperCase();
}

// Bounds on what anyone may ask of these endpoints, within the attempt counts' 15 minutes: codes asked for
// per client address (and pending at once, from one address and in all), and user codes looked up in vain
// per session and per address, so the 20^8 codes cannot be walked.
const CODES_PER_ADDRESS = 10;
const PENDING_PER_ADDRESS = 5;
const PENDING_IN_ALL = 10_000;
const MISSES_PER_SESSION = 10;
const MISSES_PER_ADDRESS = 30;

const limited = (what: string) => (retryAfterSeconds: number) => errors.deviceFlowLimited(what, retryAfterSeconds);

export async function requestDeviceCode(db: Kysely<Database>, input: { clientName: string | null; address: string }, now = Date.now()) {
  // A code nobody used is gone at its expiry: nothing of it is kept.
  await deleteExpiredDeviceAuthorizations(db, new Date(now).toISOString());
  const address = input.address.toLowerCase();
  const tooMany = limited('device-login codes asked for from this address');
  await takeAttempts(db, [{ key: `device-code:${address}`, limit: CODES_PER_ADDRESS }], tooMany, now);
  const pending = await pendingDeviceAuthorizations(db, address);
  if (pending.fromAddress >= PENDING_PER_ADDRESS) throw tooMany(DEVICE_CODE_LIFETIME_SECONDS);
  if (pending.inAll >= PENDING_IN_ALL) throw limited('device logins waiting for approval')(POLL_INTERVAL_SECONDS * 12);
  const deviceCode = randomToken();
  const userCode = newUserCode();
  await insertDeviceAuthorization(db, {
    id: newId(),
    device_code_hash: tokenHash(deviceCode),
    user_code: userCode,
    client_name: input.clientName?.trim() || null,
    status: 'pending',
    requested_at: new Date(now).toISOString(),
    expires_at: new Date(now + DEVICE_CODE_LIFETIME_SECONDS * 1000).toISOString(),
    interval_seconds: POLL_INTERVAL_SECONDS,
    last_polled_at: null,
    approved_by_user_id: null,
    org_id: null,
    device_label: null,
    requested_from: address,
  });
  return { deviceCode, userCode, expiresIn: DEVICE_CODE_LIFETIME_SECONDS, interval: POLL_INTERVAL_SECONDS };
}

const expired = (row: DeviceAuthorizationRow, now: number) => Date.parse(row.expires_at) <= now;

/** The device's poll: the key once approved (only once), or the RFC 8628 error that says why not yet. */
export async function collectDeviceToken(db: Kysely<Database>, deviceCode: string, now = Date.now()): Promise<{ accessToken: string; scope: string }> {
  const row = await deviceAuthorizationByDeviceCodeHash(db, tokenHash(deviceCode));
  if (!row) throw new DeviceTokenError('invalid_grant', 'Unknown device code');
  if (row.status === 'consumed') throw new DeviceTokenError('invalid_grant', 'This device code has already been used');
  if (row.status === 'denied') throw new DeviceTokenError('access_denied', 'The request was denied');
  if (expired(row, now)) throw new DeviceTokenError('expired_token', 'The device code has expired; start the login again');
  if (row.status === 'pending') {
    const tooSoon = row.last_polled_at !== null && now - Date.parse(row.last_polled_at) < row.interval_seconds * 1000;
    const interval = tooSoon ? row.interval_seconds + SLOW_DOWN_STEP_SECONDS : row.interval_seconds;
    await setDevicePolledAt(db, row.id, new Date(now).toISOString(), interval);
    if (tooSoon) throw new DeviceTokenError('slow_down', `Polling too fast; wait ${interval} seconds between requests`);
    throw new DeviceTokenError('authorization_pending', 'Waiting for the user to approve the request');
  }
  return db.transaction().execute(async (trx) => {
    // approved → consumed: a second poll racing this one finds it consumed.
    if (!(await moveDeviceAuthorization(trx, row.id, 'consumed', { last_polled_at: new Date(now).toISOString() }))) {
      throw new DeviceTokenError('invalid_grant', 'This device code has already been used');
    }
    // The approver as they are now: disabled since, or gone from the organization, grants nothing.
    const approver = row.approved_by_user_id ? await userById(trx, row.approved_by_user_id) : undefined;
    const role = approver && !approver.disabled_at ? await roleIn(trx, row.org_id!, approver.id) : undefined;
    if (!role) throw new DeviceTokenError('access_denied', 'The approving user is disabled or no longer a member of the organization');
    const scopes = scopesOf(role);
    const { key } = await createApiKey(trx, { orgId: row.org_id!, name: row.device_label ?? 'CLI device', scopes, createdByUserId: row.approved_by_user_id });
    return { accessToken: key, scope: scopes.join(' ') };
  });
}

/** Who is looking a user code up: a signed-in session, from a client address. */
export interface DeviceLookup {
  sessionId: string;
  address: string;
}

/**
 * A pending or decided authorization as the approval page shows it; unknown and expired codes are not
 * found. Each look-up is counted against the session and the address before it is made, and given back
 * when the code exists, so only look-ups in vain (guesses) use up the limit.
 */
export async function deviceAuthorizationView(db: Kysely<Database>, userCode: string, who: DeviceLookup, now = Date.now()): Promise<DeviceAuthorizationRow> {
  const subjects = [
    { key: `device-lookup:session:${who.sessionId}`, limit: MISSES_PER_SESSION },
    { key: `device-lookup:address:${who.address.toLowerCase()}`, limit: MISSES_PER_ADDRESS },
  ];
  await takeAttempts(db, subjects, limited('unknown device-login codes looked up'), now);
  const row = await deviceAuthorizationByUserCode(db, normalUserCode(userCode));
  if (!row || (row.status === 'pending' && expired(row, now))) throw notFound('Device authorization');
  await returnAttempts(db, subjects);
  return row;
}

export async function decideDeviceAuthorization(
  db: Kysely<Database>,
  userCode: string,
  decision: { approve: true; userId: string; orgId: string; deviceLabel: string } | { approve: false; userId: string },
  who: DeviceLookup,
  now = Date.now(),
): Promise<DeviceAuthorizationRow['status']> {
  const row = await deviceAuthorizationView(db, userCode, who, now);
  if (row.status !== 'pending') throw invalidState(`This device code was already ${row.status}`);
  if (decision.approve && !(await roleIn(db, decision.orgId, decision.userId))) throw notFound('Organization');
  const to = decision.approve ? 'approved' : 'denied';
  const changes = decision.approve
    ? { approved_by_user_id: decision.userId, org_id: decision.orgId, device_label: decision.deviceLabel }
    : { approved_by_user_id: decision.userId };
  if (!(await moveDeviceAuthorization(db, row.id, to, changes))) throw invalidState('This device code was already decided');
  return to;
}

import type { Kysely } from 'kysely';
import { clearLoginAttempts, forgetStaleAttempts, loginAttempt, returnAttempt, takeAttempt } from '../store/accounts.ts';
import type { Database } from '../store/schema.ts';
import { errors } from './errors.ts';

// Attempts are counted in the database, so every process of the service shares them, and each is
// counted BEFORE its password is checked: parallel guesses cannot all be judged before the first failure
// is recorded. A success gives its attempt back. Three counts, so that a stranger cannot lock someone out:
// - an email from one client address: 5 attempts lock that pair (the guesser, not the account's owner);
// - a client address: 30, whatever the emails (spraying one password over many accounts);
// - an email from anywhere: 100, a guesser spread over many addresses (20 at least, given the pair's limit).
const WINDOW_MS = 15 * 60_000;
const LOCK_MS = 15 * 60_000;
const LIMITS = { pair: 5, address: 30, email: 100 } as const;

export type AttemptKind = keyof typeof LIMITS;
type Subject = { kind: AttemptKind; key: string };

/** The counts one sign-in attempt takes from. */
export function signInSubjects(email: string, address: string): Subject[] {
  const e = email.trim().toLowerCase();
  const a = address.toLowerCase();
  return [
    { kind: 'pair', key: `pair:${e}|${a}` },
    { kind: 'address', key: `address:${a}` },
    { kind: 'email', key: `email:${e}` },
  ];
}

/**
 * Counts a rate-limited action (a sign-in, a device-login request or look-up) in every subject, or refuses
 * it (429 from `refuse`) when any is at its limit within the window; every count shares the one window and
 * lock length, so the counts past both can be forgotten here and the table stays small.
 */
export async function takeAttempts(
  db: Kysely<Database>,
  subjects: { key: string; limit: number }[],
  refuse: (retryAfterSeconds: number) => Error,
  now = Date.now(),
): Promise<void> {
  const at = { now: new Date(now).toISOString(), windowStart: new Date(now - WINDOW_MS).toISOString(), lockedUntil: new Date(now + LOCK_MS).toISOString() };
  await forgetStaleAttempts(db, at);
  const taken: typeof subjects = [];
  for (const subject of subjects) {
    if (await takeAttempt(db, subject.key, subject.limit, at)) {
      taken.push(subject);
      continue;
    }
    await returnAttempts(db, taken);
    const row = await loginAttempt(db, subject.key);
    const until = row?.locked_until ? Date.parse(row.locked_until) : now + LOCK_MS;
    throw refuse(Math.max(1, Math.ceil((until - now) / 1000)));
  }
}

/** Gives back attempts taken by takeAttempts that turned out not to count. */
export async function returnAttempts(db: Kysely<Database>, subjects: { key: string; limit: number }[]): Promise<void> {
  for (const subject of subjects) await returnAttempt(db, subject.key, subject.limit);
}

/** Takes one attempt from each count, or refuses with 429 SIGN_IN_LOCKED while any is locked. */
export async function reserveSignIn(db: Kysely<Database>, subjects: Subject[], now = Date.now()): Promise<void> {
  await takeAttempts(db, subjects.map((s) => ({ key: s.key, limit: LIMITS[s.kind] })), errors.signInLocked, now);
}

/**
 * A successful sign-in gives its attempt back and clears the failures of that email from that address;
 * the address's and the email's other failures stay (one good password must not unlock guessing at others).
 */
export async function signInSucceeded(db: Kysely<Database>, subjects: Subject[]): Promise<void> {
  for (const subject of subjects) {
    if (subject.kind === 'pair') await clearLoginAttempts(db, subject.key);
    else await returnAttempt(db, subject.key, LIMITS[subject.kind]);
  }
}

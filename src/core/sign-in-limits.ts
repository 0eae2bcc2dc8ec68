import type { Kysely } from 'kysely';
import { clearLoginAttempts, loginAttempt, saveLoginAttempt } from '../store/accounts.ts';
import type { Database } from '../store/schema.ts';
import { errors } from './errors.ts';

// Failed sign-ins are counted per email and per client address, in the database so every process of the
// service shares them: past the limit within the window, that email (or address) is refused until the
// lock ends, whatever the password. A wider limit for addresses, since many people may share one.
const WINDOW_MS = 15 * 60_000;
const LOCK_MS = 15 * 60_000;
const LIMITS = { email: 5, address: 30 } as const;

type Subject = { kind: keyof typeof LIMITS; value: string };

const keyOf = (s: Subject) => `${s.kind}:${s.value.toLowerCase()}`;

/** Refuses (429 SIGN_IN_LOCKED) while any of the subjects is locked. */
export async function assertSignInAllowed(db: Kysely<Database>, subjects: Subject[], now = Date.now()): Promise<void> {
  for (const subject of subjects) {
    const attempt = await loginAttempt(db, keyOf(subject));
    const until = attempt?.locked_until ? Date.parse(attempt.locked_until) : 0;
    if (until > now) throw errors.signInLocked(Math.ceil((until - now) / 1000));
  }
}

export async function recordSignInFailure(db: Kysely<Database>, subjects: Subject[], now = Date.now()): Promise<void> {
  for (const subject of subjects) {
    const key = keyOf(subject);
    const attempt = await loginAttempt(db, key);
    const fresh = !attempt || now - Date.parse(attempt.window_started_at) > WINDOW_MS;
    const failures = fresh ? 1 : attempt.failures + 1;
    await saveLoginAttempt(db, {
      subject: key,
      failures,
      window_started_at: fresh ? new Date(now).toISOString() : attempt.window_started_at,
      locked_until: failures >= LIMITS[subject.kind] ? new Date(now + LOCK_MS).toISOString() : null,
    });
  }
}

/** A successful sign-in clears the email's count (not the address's: one good password must not unlock guessing at others). */
export async function recordSignInSuccess(db: Kysely<Database>, email: string): Promise<void> {
  await clearLoginAttempts(db, keyOf({ kind: 'email', value: email }));
}

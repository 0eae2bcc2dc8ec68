import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createUser } from '../../src/core/accounts.ts';
import { createHarness, type Harness } from '../support/api.ts';

const PASSWORD = 'correct horse battery staple';

let h: Harness;
let users = 0;

async function person(): Promise<string> {
  const email = `limited${++users}@example.com`;
  await createUser(h.database.store.db, { email, password: PASSWORD });
  return email;
}

const signIn = (email: string, password: string, address: string) =>
  h.app.inject({ method: 'POST', url: '/console/api/session', payload: { email, password }, remoteAddress: address });

const statuses = (responses: { statusCode: number }[]) => {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.statusCode] = (counts[r.statusCode] ?? 0) + 1;
  return counts;
};

describe('sign-in limits', () => {
  before(async () => {
    h = await createHarness();
  });
  after(() => h.close());

  test('40 wrong passwords sent at once: only 5 are judged, the rest are refused as locked', async () => {
    const email = await person();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => signIn(email, `guess number ${i}`, '10.2.0.1')));
    assert.deepEqual(statuses(answers), { 401: 5, 429: 35 });
    const locked = answers.find((a) => a.statusCode === 429)!;
    assert.equal(locked.json().detail.error_code, 'SIGN_IN_LOCKED');
    assert.ok(Number(locked.headers['retry-after']) > 0);
  });

  test('once wrong guesses sent at once have reached the lock, the right password from that address is refused', async () => {
    const email = await person();
    const wrong = await Promise.all(Array.from({ length: 24 }, (_, i) => signIn(email, `guess number ${i}`, '10.2.0.2')));
    assert.deepEqual(statuses(wrong), { 401: 5, 429: 19 });
    const right = await signIn(email, PASSWORD, '10.2.0.2');
    assert.equal(right.statusCode, 429);
    assert.equal(right.headers['set-cookie'], undefined);
  });

  test("a stranger's wrong passwords do not lock the account's owner out from another address", async () => {
    const email = await person();
    for (let i = 0; i < 5; i++) assert.equal((await signIn(email, `guess ${i}`, '10.2.0.3')).statusCode, 401);
    assert.equal((await signIn(email, PASSWORD, '10.2.0.3')).statusCode, 429, 'the guesser is locked');
    assert.equal((await signIn(email, PASSWORD, '10.2.0.4')).statusCode, 200, 'the owner, elsewhere, is not');
  });

  test('a success gives its attempt back: signing in many times from one address never locks it', async () => {
    const email = await person();
    for (let i = 0; i < 31; i++) assert.equal((await signIn(email, PASSWORD, '10.2.0.5')).statusCode, 200);
  });

  test('counts whose window and lock have passed are forgotten, so the table does not grow with every guessed email', async () => {
    const old = new Date(Date.now() - 16 * 60_000).toISOString();
    await h.database.store.db.insertInto('login_attempts').values({ subject: 'email:long-ago@example.com', failures: 3, window_started_at: old, locked_until: null }).execute();
    await h.database.store.db.insertInto('login_attempts').values({ subject: 'email:still-locked@example.com', failures: 100, window_started_at: old, locked_until: new Date(Date.now() + 60_000).toISOString() }).execute();
    await signIn('someone-else@example.com', 'a wrong guess', '10.2.0.6');
    const subjects = (await h.database.store.db.selectFrom('login_attempts').select('subject').execute()).map((r) => r.subject);
    assert.ok(!subjects.includes('email:long-ago@example.com'));
    assert.ok(subjects.includes('email:still-locked@example.com'), 'a lock is kept until it ends');
  });

  test('guesses at one email spread over many addresses lock that email after 100, from anywhere', async () => {
    const email = await person();
    // 25 addresses, 4 guesses each: no address and no pair reaches its own limit.
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => signIn(email, `guess ${i}`, `10.3.${i % 25}.1`)));
    assert.deepEqual(statuses(answers), { 401: 100 });
    const owner = await signIn(email, PASSWORD, '10.4.0.1');
    assert.equal(owner.statusCode, 429);
    assert.equal(owner.json().detail.error_code, 'SIGN_IN_LOCKED');
    assert.equal((await signIn(await person(), PASSWORD, '10.4.0.1')).statusCode, 200, 'other accounts are not locked by it');
  });
});

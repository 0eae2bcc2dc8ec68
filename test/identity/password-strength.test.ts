import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createUser } from '../../src/core/accounts.ts';
import { passwordProblem } from '../../src/core/password-strength.ts';
import { createTestDatabase, type TestDatabase } from '../support/store.ts';

test('easily guessed passwords are refused with the reason, whatever their length', () => {
  const refused: [string, RegExp][] = [
    ['short', /at least 12/],
    ['aaaaaaaaaaaa', /fewer than 6 different/],
    ['aAaAaAaAaAaAaAaA', /fewer than 6 different/],
    ['abcabcabcabcabcabc', /fewer than 6 different/],
    ['abcdefabcdefabcdef', /repeated or sequential/],
    ['abcdefghijklmnop', /repeated or sequential/],
    ['123456789012', /repeated or sequential/],
    ['987654321098', /repeated or sequential/],
    ['zyxwvutsrqpo', /repeated or sequential/],
    ['Password1234', /most common/],
    ['P@ssword2026!', /most common/],
    ['Summer2026!!!', /most common/],
    ['qwertyuiop123', /most common/],
    ['1q2w3e4r5t6y', /most common/],
    ['iloveyou2026', /most common/],
    ['Alice-1984-07!', /most common/],
    ['x'.repeat(2000), /at most 1024/],
  ];
  for (const [password, reason] of refused) assert.match(passwordProblem(password, 'alice@example.com') ?? 'accepted', reason, password);
  for (const password of ['correct horse battery staple', 'Zr8#kq2LmV9xTw4pQ7', 'a long enough passphrase', 'tangerine-ladder-43-vortex']) {
    assert.equal(passwordProblem(password, 'alice@example.com'), null, password);
  }
});

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.cleanup());

test('creating a user with a weak password fails with the reason and stores nothing', async () => {
  await assert.rejects(createUser(database.store.db, { email: 'weak@example.com', password: 'aaaaaaaaaaaa' }), /fewer than 6 different characters/);
  assert.equal(await database.store.db.selectFrom('users').select('id').where('email', '=', 'weak@example.com').executeTakeFirst(), undefined);
  await createUser(database.store.db, { email: 'strong@example.com', password: 'tangerine-ladder-43-vortex' });
  await createUser(database.store.db, { email: 'sso@example.com', password: null });
});

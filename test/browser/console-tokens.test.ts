// A repository's access token in the console, in a real browser against the real server: an admin sets
// it on the repository's page (a password field), sees "token set, changed <date>" and never the token,
// replaces it and removes it. Screenshots go to a temporary folder printed at the start. Skips when
// /usr/bin/chromium is absent.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadTokenBox } from '../../src/crypto/token-box.ts';
import { openStore } from '../../src/store/database.ts';
import { unnamedControls } from './support/a11y.ts';
import { browserUnavailable, launchBrowser, signIn, type Browser } from './support/browser.ts';
import { buildConsole, startConsoleServer, type ConsoleServer } from './support/server.ts';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const missing = browserUnavailable();
const EMAIL = 'linus@example.com';
const PASSWORD = 'a passphrase for tokens 9';
const TOKEN = 'ghp_browserSetToken0123456789abcdefABCDEF';

if (missing) test('console access tokens in chromium', (t) => t.skip(`browser tests skipped: ${missing}`));
else
  describe('console access tokens in chromium', () => {
    let server: ConsoleServer;
    let browser: Browser;
    let unitId: string;

    before(async () => {
      await buildConsole();
      server = await startConsoleServer();
      await server.createUser(EMAIL, PASSWORD, 'admin');
      const env = { ...process.env, ...server.database.env };
      const { stdout } = await run(process.execPath, [CLI, 'repo', 'add', '--org', 'default', '--source', 'github:acme/tokens@main', '--json'], { cwd: path.dirname(CLI), env });
      unitId = JSON.parse(stdout).id;
      browser = await launchBrowser();
    });
    after(async () => {
      assert.deepEqual(browser?.problems ?? [], [], 'no uncaught error or CSP refusal in the page');
      await browser?.close();
      await server?.close();
    });

    test('an admin sets, replaces and removes a repository\'s token and sees only its state', { timeout: 120_000 }, async () => {
      const { page } = browser;
      const orgPath = await signIn(page, server.url, EMAIL, PASSWORD);

      await page.goto(`${server.url}${orgPath}/repositories/${unitId}`);
      const panel = page.getByRole('region', { name: 'Access tokens' });
      await panel.getByText('no token').waitFor();
      const field = panel.getByLabel('Token for GitHub acme/tokens');
      assert.equal(await field.getAttribute('type'), 'password', 'the token is typed into a password field');
      await field.fill(TOKEN);
      await panel.getByRole('button', { name: 'Set token' }).click();
      await panel.getByText(/^token set, changed /).waitFor();
      await panel.getByText('Token saved.').waitFor();
      assert.equal(await panel.getByLabel('New token for GitHub acme/tokens').inputValue(), '', 'the field is emptied');
      assert.ok(!(await page.content()).includes(TOKEN), 'the token is nowhere on the page');
      assert.deepEqual(await unnamedControls(page), [], 'every control has an accessible name');
      const shot = await browser.screenshot('tokens-01-set');
      console.log(`token set: ${shot}`);

      const store = openStore({ databaseUrl: server.database.env.DATABASE_URL ?? null, dataDir: server.database.dataDir });
      try {
        const row = await store.db.selectFrom('source_repos').selectAll().where('unit_id', '=', unitId).executeTakeFirstOrThrow();
        assert.equal(loadTokenBox(null, server.database.dataDir).open(row.token_ciphertext!), TOKEN, 'the token the server stored, sealed');
      } finally {
        await store.close();
      }

      await panel.getByLabel('New token for GitHub acme/tokens').fill(`${TOKEN}2`);
      await panel.getByRole('button', { name: 'Replace token' }).click();
      await panel.getByText('Token replaced.').waitFor();

      await panel.getByRole('button', { name: 'Remove the token of acme/tokens' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Remove token' }).click();
      await panel.getByText('no token').waitFor();
      await panel.getByText('Token removed.').waitFor();
      console.log(`token removed: ${await browser.screenshot('tokens-02-removed')}`);
    });
  });

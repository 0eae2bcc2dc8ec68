// Outbound webhook endpoints and a repository's automatic scans in the console, in a real browser against
// the real server: an admin adds an endpoint and sees its signing secret once, disables, re-enables and
// removes it; then ticks the scan types a repository runs on pushes and pull requests and finds them kept
// after a reload. Screenshots go to a temporary folder printed at the start. Skips when /usr/bin/chromium
// is absent.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { unnamedControls } from './support/a11y.ts';
import { browserUnavailable, launchBrowser, signIn, type Browser } from './support/browser.ts';
import { buildConsole, startConsoleServer, type ConsoleServer } from './support/server.ts';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const missing = browserUnavailable();
const EMAIL = 'ada@example.com';
const PASSWORD = 'a passphrase for automation 3';
const ENDPOINT = 'https://hooks.example.test/bulwark';

if (missing) test('console automation in chromium', (t) => t.skip(`browser tests skipped: ${missing}`));
else
  describe('console automation in chromium', () => {
    let server: ConsoleServer;
    let browser: Browser;
    let unitId: string;
    /** The organization's path, once signed in: each test signs in if none before it did (tests run in any order). */
    let orgPath: string | undefined;

    before(async () => {
      await buildConsole();
      server = await startConsoleServer();
      await server.createUser(EMAIL, PASSWORD, 'admin');
      const env = { ...process.env, ...server.database.env };
      const { stdout } = await run(process.execPath, [CLI, 'repo', 'add', '--org', 'default', '--source', 'github:acme/automation@main', '--json'], { cwd: path.dirname(CLI), env });
      unitId = JSON.parse(stdout).id;
      browser = await launchBrowser();
    });
    after(async () => {
      assert.deepEqual(browser?.problems ?? [], [], 'no uncaught error or CSP refusal in the page');
      await browser?.close();
      await server?.close();
    });

    test('an admin adds an outbound endpoint, sees its secret once, disables, enables and removes it', { timeout: 120_000 }, async () => {
      const { page } = browser;
      orgPath ??= await signIn(page, server.url, EMAIL, PASSWORD);

      await page.goto(`${server.url}${orgPath}/settings/webhooks`);
      await page.getByText('No outbound endpoints yet.').waitFor();
      await page.getByLabel('Endpoint URL').fill(ENDPOINT);
      await page.getByLabel('Description (optional)').fill('Ticketing bridge');
      await page.getByRole('checkbox', { name: 'detected' }).check();
      await page.getByRole('button', { name: 'Add endpoint' }).click();

      const secret = (await page.getByLabel('Endpoint signing secret').textContent()) ?? '';
      assert.match(secret, /^whsec_/);
      await page.getByRole('button', { name: 'Copy signing secret' }).waitFor();
      const row = page.getByRole('row', { name: new RegExp(ENDPOINT) });
      await row.getByText('Enabled').waitFor();
      await row.getByText('detected', { exact: true }).waitFor();
      await row.getByText('Never').waitFor();
      assert.deepEqual(await unnamedControls(page), [], 'every control has an accessible name');
      console.log(`endpoint added: ${await browser.screenshot('automation-01-endpoint-added')}`);

      await page.getByRole('button', { name: 'Done' }).click();
      assert.ok(!(await page.content()).includes(secret), 'the secret is gone once dismissed');

      await row.getByRole('button', { name: `Disable ${ENDPOINT}` }).click();
      await row.getByText('Disabled', { exact: true }).waitFor();
      await row.getByRole('button', { name: `Deliveries of ${ENDPOINT}` }).click();
      await page.getByText('Nothing sent to this endpoint yet.').waitFor();
      assert.deepEqual(await unnamedControls(page), [], 'every control has an accessible name');
      console.log(`endpoint disabled: ${await browser.screenshot('automation-02-endpoint-disabled')}`);

      await page.reload();
      await row.getByText('Disabled', { exact: true }).waitFor();
      await row.getByRole('button', { name: `Enable ${ENDPOINT}` }).click();
      await row.getByText('Enabled').waitFor();

      await row.getByRole('button', { name: `Rotate the secret of ${ENDPOINT}` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
      const rotated = (await page.getByLabel('Endpoint signing secret').textContent()) ?? '';
      assert.match(rotated, /^whsec_/);
      assert.notEqual(rotated, secret);
      console.log(`secret rotated: ${await browser.screenshot('automation-03-secret-rotated')}`);
      await page.getByRole('button', { name: 'Done' }).click();

      await row.getByRole('button', { name: `Remove ${ENDPOINT}` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Remove endpoint' }).click();
      await page.getByText('No outbound endpoints yet.').waitFor();
    });

    test("an admin sets a repository's automatic scans and finds them kept", { timeout: 120_000 }, async () => {
      const { page } = browser;
      orgPath ??= await signIn(page, server.url, EMAIL, PASSWORD);
      await page.goto(`${server.url}${orgPath}/repositories/${unitId}`);
      const panel = page.getByRole('region', { name: 'Automatic scans' });
      const push = panel.getByRole('group', { name: 'On a push to main' });
      const pulls = panel.getByRole('group', { name: 'On pull requests into main' });
      await push.getByRole('checkbox', { name: 'Secrets scan' }).check();
      await pulls.getByRole('checkbox', { name: 'Secrets scan' }).check();
      await pulls.getByRole('checkbox', { name: /Semgrep/ }).check();
      await panel.getByRole('button', { name: 'Save automatic scans' }).click();
      await panel.getByText('Automatic scans saved.').waitFor();
      assert.ok(await panel.getByRole('link', { name: 'Settings → Webhooks' }).isVisible());
      assert.deepEqual(await unnamedControls(page), [], 'every control has an accessible name');
      console.log(`automatic scans: ${await browser.screenshot('automation-04-scan-triggers')}`);

      await page.reload();
      await push.getByRole('checkbox', { name: 'Secrets scan' }).waitFor();
      assert.equal(await push.getByRole('checkbox', { name: 'Secrets scan' }).isChecked(), true);
      assert.equal(await push.getByRole('checkbox', { name: /Semgrep/ }).isChecked(), false);
      assert.equal(await pulls.getByRole('checkbox', { name: 'Secrets scan' }).isChecked(), true);
      assert.equal(await pulls.getByRole('checkbox', { name: /Semgrep/ }).isChecked(), true);
    });
  });

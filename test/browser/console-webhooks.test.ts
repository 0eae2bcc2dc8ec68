// Code-host webhooks in the console, in a real browser against the real server: an admin adds one, reads
// what to set on the host (address, secret shown once, events), the host's signed delivery shows in its
// log, and the admin removes it. Screenshots go to a temporary folder printed at the start. Skips when
// /usr/bin/chromium is absent.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { githubSignature } from '../support/helpers.ts';
import { unnamedControls } from './support/a11y.ts';
import { browserUnavailable, launchBrowser, signIn, type Browser } from './support/browser.ts';
import { buildConsole, startConsoleServer, type ConsoleServer } from './support/server.ts';

const missing = browserUnavailable();
const EMAIL = 'grace@example.com';
const PASSWORD = 'a passphrase for webhooks 7';

if (missing) test('console webhooks in chromium', (t) => t.skip(`browser tests skipped: ${missing}`));
else
  describe('console webhooks in chromium', () => {
    let server: ConsoleServer;
    let browser: Browser;

    before(async () => {
      await buildConsole();
      server = await startConsoleServer();
      await server.createUser(EMAIL, PASSWORD, 'admin');
      browser = await launchBrowser();
    });
    after(async () => {
      assert.deepEqual(browser?.problems ?? [], [], 'no uncaught error or CSP refusal in the page');
      await browser?.close();
      await server?.close();
    });

    test('an admin adds a GitHub webhook, sees its setup once, its deliveries, and removes it', { timeout: 120_000 }, async () => {
      const { page } = browser;
      const orgPath = await signIn(page, server.url, EMAIL, PASSWORD);

      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.waitForURL(new RegExp(`${orgPath}/settings/webhooks$`));
      await page.getByText('No code-host webhooks yet.').waitFor();
      await page.getByLabel('Code host').selectOption('github');
      await page.getByRole('button', { name: 'Add webhook' }).click();

      const secret = (await page.getByLabel('New webhook secret').textContent()) ?? '';
      assert.match(secret, /^bwhk_/);
      const address = (await page.getByRole('status').getByLabel('Address for GitHub').textContent()) ?? '';
      assert.match(address, new RegExp(`^${server.url}/hooks/code-hosts/[0-9a-f-]+$`));
      await page.getByRole('status').getByText('Let me select individual events: Pull requests').waitFor();
      assert.deepEqual(await unnamedControls(page), [], 'every control has an accessible name');
      console.log(`webhook added: ${await browser.screenshot('webhooks-01-added')}`);

      // GitHub's ping, signed with the secret, as the host sends it when the webhook is saved.
      const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
      const signature = githubSignature(secret, body);
      const delivered = await fetch(address, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'ping', 'x-github-delivery': 'ping-1', 'x-hub-signature-256': signature },
        body,
      });
      assert.equal(delivered.status, 202);

      await page.getByRole('button', { name: 'Done' }).click();
      assert.ok(!(await page.content()).includes(secret), 'the secret is gone from the page once set up');
      await page.reload();
      const row = page.getByRole('row', { name: /GitHub/ });
      await row.getByRole('button', { name: 'Deliveries' }).click();
      await row.getByText('ping-1').waitFor();
      await row.getByText('ignored: nothing Bulwark uses').waitFor();
      console.log(`deliveries: ${await browser.screenshot('webhooks-02-deliveries')}`);

      await row.getByRole('button', { name: 'Remove the GitHub webhook for every GitHub repository' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Remove webhook' }).click();
      await page.getByText('No code-host webhooks yet.').waitFor();
      const refused = await fetch(address, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, body });
      assert.equal(refused.status, 404);
    });
  });

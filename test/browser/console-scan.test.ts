// The console's main path in a real browser against the real server with its worker: a repository added
// through the form (a local git repository holding a committed credential), a secrets scan started with
// the quota shown and followed by its progress bar to the end, its finding opened (code with the flagged
// line), a fix started from it and its diff rendered, the event feed. Skips when /usr/bin/chromium is absent.
import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, describe, test } from 'node:test';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { TestRepo } from '../support/git-repo.ts';
import { positiveSample } from '../support/secret-samples.ts';
import { unnamedControls } from './support/a11y.ts';
import { browserUnavailable, launchBrowser, type Browser } from './support/browser.ts';
import { buildConsole, startConsoleServer, type ConsoleServer } from './support/server.ts';

const missing = browserUnavailable();
const EMAIL = 'grace@example.com';
const PASSWORD = 'another long passphrase 7';
const stripeKey = positiveSample(SECRET_RULES.find((rule) => rule.id === 'stripe-secret-key')!, 301);

if (missing) test('console scan and fix path in chromium', (t) => t.skip(`browser tests skipped: ${missing}`));
else
  describe('console scan and fix path in chromium', () => {
    let server: ConsoleServer;
    let browser: Browser;
    let repo: TestRepo;

    before(async () => {
      repo = TestRepo.create();
      repo.commit({
        'app/payments.py': `import requests\n\nSTRIPE_KEY = "${stripeKey}"\n\n\ndef charge(amount):\n    return requests.post("https://api.stripe.com/v1/charges", auth=(STRIPE_KEY, ""), data={"amount": amount})\n`,
      });
      await buildConsole();
      server = await startConsoleServer({
        worker: true,
        env: { BULWARK_ALLOW_LOCAL_REPOS: 'true', BULWARK_LOCAL_REPOS_ROOT: os.tmpdir(), BULWARK_JOB_LEASE_SECONDS: '10' },
      });
      await server.createUser(EMAIL, PASSWORD, 'admin');
      browser = await launchBrowser();
    });
    after(async () => {
      assert.deepEqual(browser?.problems ?? [], [], 'no uncaught error or CSP refusal in the page');
      await browser?.close();
      await server?.close();
      repo?.remove();
    });

    test('add a repository, scan it, open the finding, fix it', { timeout: 180_000 }, async () => {
      const { page } = browser;
      const named = async () => assert.deepEqual(await unnamedControls(page), [], 'every control has an accessible name');
      await page.goto(`${server.url}/login`);
      await page.getByLabel('Email').fill(EMAIL);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/orgs\/[^/]+\/repositories$/);

      await page.getByRole('button', { name: 'Add repository' }).click();
      await page.getByLabel('Provider').selectOption('github');
      await page.getByLabel('Full name').fill('acme/shop');
      await page.getByLabel('Default branch').fill('main');
      await page.getByLabel('Clone URL (optional)').fill(repo.url);
      await named();
      await browser.screenshot('scan-01-add-repository');
      await page.locator('#add-repository').getByRole('button', { name: 'Add repository' }).click();
      await page.getByRole('heading', { level: 1, name: 'acme/shop' }).waitFor();

      await page.getByLabel('Scan type').selectOption('secrets_scan');
      await page.getByText(/scans left this period/).waitFor();
      await page.getByRole('button', { name: 'Start scan' }).click();
      await page.getByRole('progressbar', { name: 'Secrets scan progress' }).waitFor();
      await browser.screenshot('scan-02-started');
      await page.getByRole('progressbar', { name: 'Secrets scan progress' }).and(page.locator('[aria-valuenow="100"]')).waitFor({ timeout: 120_000 });
      await page.locator('.badge', { hasText: 'Completed' }).first().waitFor();
      await named();
      await browser.screenshot('scan-03-completed');

      await page.getByRole('link', { name: /^Findings of the secrets scan/ }).click();
      await page.getByRole('heading', { level: 1, name: 'Findings' }).waitFor();
      const first = page.locator('tbody tr').first().getByRole('link');
      await first.waitFor();
      await page.getByLabel('Sort by').selectOption('severity');
      await page.waitForURL(/sort=severity/);
      await first.waitFor();
      await named();
      await browser.screenshot('scan-04-findings');
      await first.click();
      await page.locator('.code-line.hl').first().waitFor();
      assert.ok(!(await page.locator('.code').textContent())?.includes(stripeKey), 'the credential is masked in the code shown');
      await named();
      await browser.screenshot('scan-05-finding');

      // Triage with a comment: the status changes and the comment joins the finding's history.
      await page.getByLabel('Status').selectOption('needs_manual_review');
      await page.getByLabel('Comment (optional)').fill('Checked with the payments team');
      await page.getByRole('button', { name: 'Update status' }).click();
      await page.getByText('Marked needs manual review.').waitFor();
      await page.getByText('Checked with the payments team').first().waitFor();
      await browser.screenshot('scan-05b-triaged');

      await page.getByRole('button', { name: 'Fix', exact: true }).click();
      await page.getByRole('button', { name: 'Start fix' }).click();
      await page.waitForURL(/\/fixes\/[^/]+$/);
      await page.locator('.diff-file').first().waitFor({ timeout: 120_000 });
      await named();
      await browser.screenshot('scan-06-fix-diff');

      await page.getByRole('link', { name: 'Events', exact: true }).click();
      await page.locator('tbody').getByText('Fix created').first().waitFor();
      await browser.screenshot('scan-07-events');
    });
  });

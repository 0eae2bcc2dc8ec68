// Which scan types saw a finding, in a real browser against the real server: a problem the SAST scan and
// the deep scan both found is one finding, and the findings table and the finding's page name both types
// (the one that found it first leading) with the console's scan-type names; the scan-type filter lists it
// under either. Screenshots go to a temporary folder printed at the start. Skips when /usr/bin/chromium is
// absent.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Unit } from '../../src/core/units.ts';
import { openStore } from '../../src/store/database.ts';
import { insertFindings } from '../../src/store/findings.ts';
import { findingRow } from '../support/finding-rows.ts';
import { unnamedControls } from './support/a11y.ts';
import { browserUnavailable, launchBrowser, signIn, type Browser } from './support/browser.ts';
import { buildConsole, startConsoleServer, type ConsoleServer } from './support/server.ts';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const missing = browserUnavailable();
const EMAIL = 'barbara@example.com';
const PASSWORD = 'a passphrase for scan types 3';
const SSRF = 'Outbound request to a URL from the request';
const SECRET = 'Stripe secret key';

if (missing) test('console scan types of a finding in chromium', (t) => t.skip(`browser tests skipped: ${missing}`));
else
  describe('console scan types of a finding in chromium', () => {
    let server: ConsoleServer;
    let browser: Browser;
    let unitId: string;

    before(async () => {
      await buildConsole();
      server = await startConsoleServer();
      await server.createUser(EMAIL, PASSWORD, 'member');
      const env = { ...process.env, ...server.database.env };
      const { stdout } = await run(process.execPath, [CLI, 'repo', 'add', '--org', 'default', '--source', 'github:acme/detections@main', '--json'], { cwd: path.dirname(CLI), env });
      unitId = JSON.parse(stdout).id;
      // Findings as the scans store them: one the SAST scan found first and the deep scan saw too, one of the secrets scan alone.
      const store = openStore({ databaseUrl: server.database.env.DATABASE_URL ?? null, dataDir: server.database.dataDir });
      try {
        const unitRow = await store.db.selectFrom('units').select(['id', 'org_id']).where('id', '=', unitId).executeTakeFirstOrThrow();
        const source = await store.db.selectFrom('source_repos').select('id').where('unit_id', '=', unitId).executeTakeFirstOrThrow();
        const unit = { ...unitRow, sources: [{ id: source.id }] } as unknown as Unit;
        await insertFindings(store.db, [
          findingRow(unit, {
            scan_type: 'semgrep_scan',
            detected_by: JSON.stringify(['semgrep_scan', 'deep_ai_scan']),
            seen_by: JSON.stringify({ semgrep_scan: '', deep_ai_scan: '' }),
            check_id: 'python.lang.ssrf.outbound-request',
            title: SSRF,
            message: 'A URL taken from the request is fetched by the server.',
            category: 'sast',
            file_path: 'app/preview.py',
            start_line: 10,
            end_line: 10,
            cwe: '["CWE-918"]',
          }),
          findingRow(unit, { check_id: 'stripe-secret-key', title: SECRET, message: 'A Stripe secret key is committed', file_path: 'app/payments.py' }),
        ]);
      } finally {
        await store.close();
      }
      browser = await launchBrowser();
    });
    after(async () => {
      assert.deepEqual(browser?.problems ?? [], [], 'no uncaught error or CSP refusal in the page');
      await browser?.close();
      await server?.close();
    });

    test('a finding two scan types saw names both, in the table and on its page, and either filter lists it', { timeout: 120_000 }, async () => {
      const { page } = browser;
      const orgPath = await signIn(page, server.url, EMAIL, PASSWORD);

      await page.goto(`${server.url}${orgPath}/findings?unit=repositories:${unitId}`);
      await page.getByRole('columnheader', { name: 'Detected by' }).waitFor();
      const row = (title: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name: title }) });
      await row(SSRF).waitFor();
      assert.deepEqual(await row(SSRF).getByRole('listitem').allTextContents(), ['Semgrep scan', 'Deep AI scan']);
      assert.deepEqual(await row(SECRET).getByRole('listitem').allTextContents(), ['Secrets scan']);
      assert.deepEqual(await unnamedControls(page), [], 'every control has an accessible name');
      console.log(`findings table: ${await browser.screenshot('detected-by-01-findings')}`);

      // The filter offers the same names and lists the finding under each type that saw it.
      const filter = page.getByLabel('Scan type');
      assert.ok((await filter.locator('option').allTextContents()).includes('Deep AI scan'));
      for (const [type, label, title] of [['deep_ai_scan', 'Deep AI scan', SSRF], ['semgrep_scan', 'Semgrep scan', SSRF], ['secrets_scan', 'Secrets scan', SECRET]]) {
        await filter.selectOption({ label });
        await page.waitForURL(new RegExp(`scan_type=${type}`));
        await row(title).waitFor();
        await page.waitForFunction("document.querySelectorAll('tbody tr').length === 1");
      }
      console.log(`filtered by secrets scan: ${await browser.screenshot('detected-by-02-filtered')}`);

      await filter.selectOption({ label: 'Deep AI scan' });
      await row(SSRF).getByRole('link', { name: SSRF }).click();
      await page.getByRole('heading', { level: 1, name: SSRF }).waitFor();
      const detectedBy = page.locator('dt', { hasText: 'Detected by' }).locator('xpath=following-sibling::dd[1]');
      assert.deepEqual(await detectedBy.getByRole('listitem').allTextContents(), ['Semgrep scan', 'Deep AI scan']);
      assert.deepEqual(await unnamedControls(page), [], 'every control has an accessible name');
      console.log(`finding page: ${await browser.screenshot('detected-by-03-finding')}`);
    });
  });

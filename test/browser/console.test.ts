// The web console in a real browser against the real server: signing in (a wrong password first), the
// frame, an API key created and shown once, then used on the API and revoked, a CLI's device login approved
// on /device, signing out. Screenshots of each step go to a temporary folder printed at the start.
// Skips when /usr/bin/chromium is absent.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { unnamedControls } from './support/a11y.ts';
import { browserUnavailable, launchBrowser, type Browser } from './support/browser.ts';
import { buildConsole, startConsoleServer, type ConsoleServer } from './support/server.ts';

const missing = browserUnavailable();
const EMAIL = 'ada@example.com';
const PASSWORD = 'a long enough passphrase 42';

if (missing) test('web console in chromium', (t) => t.skip(`browser tests skipped: ${missing}`));
else describe('web console in chromium', () => {
  let server: ConsoleServer;
  let browser: Browser;

  before(async () => {
    await buildConsole();
    server = await startConsoleServer();
    await server.createUser(EMAIL, PASSWORD, 'owner');
    browser = await launchBrowser();
  });
  after(async () => {
    assert.deepEqual(browser?.problems ?? [], [], 'no uncaught error or CSP refusal in the page');
    await browser?.close();
    await server?.close();
  });

  /** Signs in unless the browser already is (the tests run in a random order, each from where it needs). */
  const signedIn = async () => {
    const { page } = browser;
    await page.goto(`${server.url}/`);
    await page.waitForURL((url) => url.pathname === '/login' || url.pathname.startsWith('/orgs/'));
    if (new URL(page.url()).pathname !== '/login') return;
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/orgs\//);
  };

  const expectNamedControls = async () => assert.deepEqual(await unnamedControls(browser.page), [], 'every control has an accessible name');

  test('the console is served by the service itself', async () => {
    const page = await fetch(`${server.url}/login`);
    assert.equal(page.status, 200, 'GET /login serves the console; is consoleAssetsPlugin registered in src/http/app.ts?');
    assert.match(await page.text(), /<div id="root">/);
  });

  test('signing in: a wrong password is refused, the right one opens the organization', async () => {
    const { page } = browser;
    await browser.context.clearCookies();
    await page.goto(`${server.url}/`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await expectNamedControls();
    await browser.screenshot('01-sign-in-refused');

    // The second attempt by keyboard alone: Tab from Email to Password, Enter submits.
    await page.getByLabel('Email').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/orgs\/[^/]+\/repositories$/);
    await page.getByRole('heading', { level: 1, name: 'Repositories' }).waitFor();
    assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Repositories', "the new page's heading takes focus");
    assert.equal(await page.getByRole('link', { name: 'Skip to content' }).count(), 1);
    assert.equal(await page.getByLabel('Organization').inputValue() !== '', true);
    for (const name of ['Repositories', 'Applications', 'Findings', 'Fixes', 'Events', 'API Keys', 'Members', 'Quotas']) {
      assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).count(), 1, name);
    }
    await expectNamedControls();
    await browser.screenshot('02-repositories');
  });

  test('after too many failed sign-ins the page says when to try again and waits', async () => {
    const { page } = browser;
    const email = 'mallory@example.com';
    for (let i = 0; i < 5; i++) {
      await fetch(`${server.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: `guess ${i}` }) });
    }
    await browser.context.clearCookies();
    await page.goto(`${server.url}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('one more guess');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: /Too many failed sign-in attempts\. Try again in \d+ (minute|second)/ }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Sign in' }).isDisabled(), true, 'the button waits for the lock to end');
    await browser.screenshot('01b-sign-in-locked');
  });

  test('an API key is shown once with Copy, works on the API, and is revoked after a confirmation', async () => {
    const { page } = browser;
    await signedIn();
    await page.getByRole('link', { name: 'API Keys', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'API Keys' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('ci pipeline');
    await page.getByRole('checkbox', { name: /scan:write/ }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByLabel('New API key');
    await shown.waitFor();
    const key = (await shown.textContent()) ?? '';
    assert.match(key, /^bwk_/);
    assert.equal(await page.getByRole('button', { name: 'Copy', exact: true }).count(), 1);
    await expectNamedControls();
    await browser.screenshot('03-api-key-created');

    const me = await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(me.status, 200);
    assert.deepEqual(((await me.json()) as { api_key: { scopes: string[] } }).api_key.scopes.sort(), ['read', 'scan:write']);

    // The confirmation by keyboard: Enter opens it with focus on Cancel, Escape closes it and gives focus
    // back, then Tab reaches the confirming button.
    const revoke = page.getByRole('button', { name: 'Revoke ci pipeline' });
    await revoke.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Cancel');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    assert.equal(await revoke.evaluate((el) => el === el.ownerDocument.activeElement), true, 'focus returns to the Revoke button');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Revoke key');
    await page.keyboard.press('Enter');
    await page.getByText(/^Revoked /).waitFor();
    await browser.screenshot('04-api-key-revoked');
    assert.equal((await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } })).status, 401);
  });

  test("a CLI's device login is approved on /device and the CLI collects its token", async () => {
    const { page } = browser;
    await signedIn();
    const started = await fetch(`${server.url}/oauth/device/code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Bulwark CLI (browser test)' }),
    });
    assert.equal(started.status, 200);
    const code = (await started.json()) as { device_code: string; user_code: string; verification_uri_complete: string; interval: number };
    // The CLI polls from the start, at the interval it was given, five seconds more after each slow_down.
    const collected = (async () => {
      let interval = code.interval;
      for (;;) {
        const answer = await fetch(`${server.url}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: code.device_code }),
        });
        const body = (await answer.json()) as { access_token?: string; error?: string };
        if (answer.status === 200) return body.access_token!;
        assert.equal(answer.status, 400);
        if (body.error === 'slow_down') interval += 5;
        else assert.equal(body.error, 'authorization_pending');
        await new Promise((resolve) => setTimeout(resolve, interval * 1000));
      }
    })();
    const complete = new URL(code.verification_uri_complete);
    // Signed out, the approval page sends to sign-in first and comes back.
    await browser.context.clearCookies();
    await page.goto(`${server.url}${complete.pathname}${complete.search}`);
    await page.waitForURL(/\/login\?next=%2Fdevice%3Fuser_code%3D/);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/device' && url.searchParams.get('user_code') === code.user_code);
    await page.getByText('Bulwark CLI (browser test)').waitFor();
    await page.getByText(code.user_code, { exact: true }).waitFor();
    await expectNamedControls();
    await browser.screenshot('05-device-approval');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText(/is signed in/).waitFor();
    await browser.screenshot('06-device-approved');

    const accessToken = await collected;
    const asCli = { headers: { authorization: `Bearer ${accessToken}` } };
    assert.equal((await fetch(`${server.url}/api/v1/me`, asCli)).status, 200);
    assert.equal((await fetch(`${server.url}/api/v1/quotas/balance`, asCli)).status, 200);
  });

  test('signing out returns to the sign-in page and the session is gone', async () => {
    const { page } = browser;
    await signedIn();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(/\/login/);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await browser.screenshot('07-signed-out');
    await page.goto(`${server.url}/orgs/x/findings`);
    await page.waitForURL(/\/login\?next=%2Forgs%2Fx%2Ffindings/);
  });
});

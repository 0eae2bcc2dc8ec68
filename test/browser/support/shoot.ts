// Screenshots of console pages on a running server (the stand-in by default): signs in, then visits each
// path given after the server URL. node test/browser/support/shoot.ts URL OUT_DIR [path …]
import { STANDIN_USER } from './standin.ts';
import { launchBrowser } from './browser.ts';

const [base, out, ...paths] = process.argv.slice(2);
if (!base || !out) throw new Error('usage: shoot.ts URL OUT_DIR [path …]');
const browser = await launchBrowser({ screenshotDir: out });
const { page } = browser;
page.on('console', (message) => { if (message.type() === 'error') console.log(`console error: ${message.text()}`); });
page.on('pageerror', (error) => console.log(`page error: ${error.message}`));
try {
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(STANDIN_USER.email);
  await page.getByLabel('Password').fill(STANDIN_USER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname.startsWith('/orgs/'));
  const orgId = new URL(page.url()).pathname.split('/')[2];
  // Each argument: a path, optionally followed by |click:<button name> or |fill:<label>=<value> steps.
  for (const [index, raw] of paths.entries()) {
    const [first, ...steps] = raw.split('|');
    const target = first!.replace('{org}', orgId ?? '');
    await page.goto(`${base}${target}`);
    await page.waitForLoadState('networkidle');
    for (const step of steps) {
      const [verb, arg = ''] = [step.slice(0, step.indexOf(':')), step.slice(step.indexOf(':') + 1)];
      if (verb === 'click') await page.getByRole('button', { name: arg, exact: true }).first().click();
      else if (verb === 'link') await page.getByRole('link', { name: arg, exact: true }).first().click();
      else if (verb === 'fill') await page.getByLabel(arg.split('=')[0]!, { exact: true }).fill(arg.split('=').slice(1).join('='));
      else if (verb === 'check') await page.getByLabel(arg, { exact: true }).first().check();
      await page.waitForTimeout(400);
    }
    await page.waitForTimeout(300);
    console.log(await browser.screenshot(`${String(index).padStart(2, '0')}-${target.replace(/[^a-z0-9]+/gi, '_').slice(0, 60)}`));
  }
} finally {
  await browser.close();
}

// Chromium for the console's browser tests: Debian's /usr/bin/chromium driven by playwright-core, headless,
// with a fresh profile per launch; screenshots go to a temporary folder whose path is printed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.BULWARK_CHROMIUM ?? '/usr/bin/chromium';

/** Why browser tests cannot run here, or undefined when they can. */
export function browserUnavailable(): string | undefined {
  return fs.existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed (apt-get install -y chromium)`;
}

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Where screenshots are saved (printed once at launch). */
  screenshotDir: string;
  /** Uncaught errors in the page and refusals by its Content-Security-Policy, since launch. */
  problems: string[];
  /** Saves a full-page screenshot as `<name>.png` and returns its path. */
  screenshot(name: string, page?: Page): Promise<string>;
  close(): Promise<void>;
}

export async function launchBrowser(options: { screenshotDir?: string; viewport?: { width: number; height: number } } = {}): Promise<Browser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-chromium-'));
  const screenshotDir = options.screenshotDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-screenshots-'));
  fs.mkdirSync(screenshotDir, { recursive: true });
  console.log(`browser screenshots: ${screenshotDir}`);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: options.viewport ?? { width: 1360, height: 860 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content.Security.Policy|Refused to/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  return {
    context,
    page,
    problems,
    screenshotDir,
    async screenshot(name, on = page) {
      const file = path.join(screenshotDir, `${name}.png`);
      await on.screenshot({ path: file, fullPage: true });
      return file;
    },
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Signs in on the console's login page and answers the organization's path (`/orgs/<id>`) it lands in. */
export async function signIn(page: Page, serverUrl: string, email: string, password: string): Promise<string> {
  await page.goto(`${serverUrl}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/orgs\/[^/]+\/repositories$/);
  return new URL(page.url()).pathname.replace(/\/repositories$/, '');
}

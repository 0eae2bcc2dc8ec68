// A check the console's browser tests make on every page: each form control, button and link has an
// accessible name. (Contrast is kept by the palette in console/src/styles.css, chosen for WCAG AA.)
import type { Page } from 'playwright-core';

// Runs in the page (as text: the server's type-check has no DOM types).
const FIND_UNNAMED = `(() => {
  const missing = [];
  const named = (el) => {
    if (el.getAttribute('aria-label')?.trim()) return true;
    const by = el.getAttribute('aria-labelledby');
    if (by && by.split(/\\s+/).some((id) => document.getElementById(id)?.textContent?.trim())) return true;
    if (el.labels && el.labels.length) return true;
    if (el.closest('label')) return true;
    if (el.tagName === 'BUTTON' || el.tagName === 'A') return Boolean(el.textContent?.trim());
    return false;
  };
  for (const el of document.querySelectorAll('input:not([type=hidden]), select, textarea, button, a[href]')) {
    const dialog = el.closest('dialog');
    if (dialog && !dialog.open) continue;
    if (!named(el)) missing.push(el.outerHTML.slice(0, 120));
  }
  return missing;
})()`;

/** Descriptions of controls without an accessible name on the current page (empty when all have one). */
export async function unnamedControls(page: Page): Promise<string[]> {
  return (await page.evaluate(FIND_UNNAMED)) as string[];
}

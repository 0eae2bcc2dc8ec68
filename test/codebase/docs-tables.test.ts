import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { README, withDocTables } from '../../scripts/docs-tables.ts';
import { PROVIDERS } from '../../src/scanning/secrets/verify/providers.ts';
import { DEFAULT_VERIFY_URLS } from '../../src/scanning/secrets/verify/settings.ts';

// The README's tables of scan types, dependency formats and code hosts are written from the registries;
// the tables of validity-check providers and of deep checks are written by hand, a row for each.

const readme = fs.readFileSync(README, 'utf8');

test('the README’s generated tables are the registries’ (regenerate with npm run docs:tables)', () => {
  assert.equal(readme, withDocTables(readme));
});

test('the README has a row for every validity-check provider and names every provider URL key', () => {
  const start = readme.indexOf('| Provider | Rules | Call |\n');
  const rows = readme.slice(start).split('\n').slice(2).findIndex((line) => !line.startsWith('|'));
  assert.equal(rows, PROVIDERS.length, 'rows in the Live validity checks table');
  const setting = readme.split('\n').find((line) => line.startsWith('| `BULWARK_SECRETS_VERIFY_URLS`'))!;
  assert.deepEqual(Object.keys(DEFAULT_VERIFY_URLS).filter((key) => !setting.includes(`\`${key}\``)), []);
});

test('the README’s table of deep checks has a row for every check the deep scan reports', () => {
  const deep = path.resolve(import.meta.dirname, '../../src/scanning/deep');
  const sources = fs.readdirSync(deep, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  const checks = new Set(sources.flatMap((file) => [...fs.readFileSync(path.join(deep, file), 'utf8').matchAll(/\.deep\.([a-z-]+\.[a-z-]+)/g)].map((m) => m[1]!)));
  assert.ok(checks.size >= 10, `${checks.size} checks found in the source`);
  assert.deepEqual([...checks].filter((check) => !readme.includes(`| \`python.deep.${check}\` |`)), []);
});

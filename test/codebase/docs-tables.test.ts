import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { README, withDocTables } from '../../scripts/docs-tables.ts';
import { PROVIDERS } from '../../src/scanning/secrets/verify/providers.ts';
import { DEFAULT_VERIFY_URLS } from '../../src/scanning/secrets/verify/settings.ts';

// The README's tables of scan types, dependency formats and code hosts are written from the registries;
// the validity-check providers' table is written by hand, one row per provider, beside the setting's keys.

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

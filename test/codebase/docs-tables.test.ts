import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { README, withDocTables } from '../../scripts/docs-tables.ts';

// The README's tables of scan types, dependency formats and code hosts are written from the registries.

test('the README’s generated tables are the registries’ (regenerate with npm run docs:tables)', () => {
  const readme = fs.readFileSync(README, 'utf8');
  assert.equal(readme, withDocTables(readme));
});

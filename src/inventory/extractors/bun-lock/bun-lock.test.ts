import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims } from '../extractor.ts';
import { extractFixture, rows, find, assertExtractError, type Row } from '../js/testing.ts';
import { bunLockExtractor } from './bun-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('bun.lock', () => {
  test('claims bun.lock, not the binary bun.lockb', () => {
    assert.ok(claims(bunLockExtractor, 'bun.lock'));
    assert.ok(!claims(bunLockExtractor, 'bun.lockb'));
  });

  test('JSONC with trailing commas: packages, nested copies, aliases, workspace members first-party', async () => {
    const components = await extractFixture(TESTDATA, bunLockExtractor, 'workspaces', 'bun.lock');
    assert.deepEqual(rows(components.filter((c) => !c.firstParty)), [
      ['@types/express', '5.0.0', true, true],
      ['@types/serve-static', '1.15.7', false, true],
      ['ansi-regex', '5.0.1', false, false],
      ['body-parser', '1.20.3', false, false],
      ['debug', '2.6.9', false, false],
      ['express', '4.21.2', true, false],
      ['ms', '2.0.0', false, false],
      // Nested under body-parser: a second copy, reached from express.
      ['ms', '2.1.3', false, false],
      // Declared by the shared workspace under an alias.
      ['strip-ansi', '6.0.1', true, false],
      ['typescript', '5.7.3', true, true],
      ['zod', '3.24.1', true, false],
    ] satisfies Row[]);
    const member = find(components, '@storefront/shared', '0.3.1');
    assert.equal(member.firstParty, true);
    assert.equal(member.purl, 'pkg:npm/%40storefront/shared@0.3.1');
    assert.equal(find(components, 'zod', '3.24.1').purl, 'pkg:npm/zod@3.24.1');
  });

  test('malformed locks', async () => {
    await assertExtractError(bunLockExtractor, 'bun.lock', '{"lockfileVersion": 1, "packages": {', /not valid JSON/);
    await assertExtractError(bunLockExtractor, 'bun.lock', '{"packages": {},}', /lockfileVersion/);
    await assertExtractError(bunLockExtractor, 'bun.lock', '{"lockfileVersion": 1, "packages": {"a": "a@1"}}', /not \[/);
  });
});

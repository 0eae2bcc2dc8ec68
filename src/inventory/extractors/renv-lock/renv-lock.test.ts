import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims } from '../extractor.ts';
import { assertRejects, extract, fixture, summarize } from '../testing.ts';
import { renvLockExtractor } from './renv-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('renv.lock', () => {
  test('claims renv.lock only', () => {
    assert.ok(claims(renvLockExtractor, 'renv.lock'));
    assert.ok(!claims(renvLockExtractor, 'DESCRIPTION'));
  });

  test('repository packages (CRAN and its mirrors) as CRAN components; Bioconductor and GitHub skipped', async () => {
    const components = await extract(renvLockExtractor, 'analysis/renv.lock', fixture(TESTDATA, 'renv.lock'));
    assert.deepEqual(
      summarize(components).map((s) => `${s.name}@${s.version}`),
      ['cli@3.6.2', 'dplyr@1.1.4', 'R6@2.5.1', 'renv@1.0.3'],
    );
    assert.equal(components.find((c) => c.name === 'dplyr')?.purl, 'pkg:cran/dplyr@1.1.4');
  });

  test('malformed locks', async () => {
    await assertRejects(renvLockExtractor, 'renv.lock', '{"R": {}}', /no `Packages`/);
    await assertRejects(renvLockExtractor, 'renv.lock', '{"Packages": {"x": {"Package": "x"}}}', /package x has no Version/);
  });
});

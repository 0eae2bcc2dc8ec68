import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims } from '../extractor.ts';
import { assertRejects, extract, fixture, summarize } from '../testing.ts';
import { conanLockExtractor } from './conan-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('conan.lock', () => {
  test('claims conan.lock only', () => {
    assert.ok(claims(conanLockExtractor, 'conan.lock'));
    assert.ok(!claims(conanLockExtractor, 'conanfile.txt'));
  });

  test('Conan 2 (lockfile 0.5): references without revisions, build requirements as development', async () => {
    const components = await extract(conanLockExtractor, 'conan.lock', fixture(TESTDATA, 'conan2.lock'));
    assert.deepEqual(summarize(components), [
      { name: 'cmake', version: '3.28.1', direct: null, development: true },
      { name: 'fmt', version: '10.2.1', direct: null, development: false },
      { name: 'libcurl', version: '8.6.0', direct: null, development: false },
      { name: 'ninja', version: '1.11.1', direct: null, development: true },
      { name: 'openssl', version: '3.2.1', direct: null, development: false },
      { name: 'zlib', version: '1.3.1', direct: null, development: false },
    ]);
    assert.equal(components.find((c) => c.name === 'openssl')?.purl, 'pkg:conan/openssl@3.2.1');
  });

  test('Conan 1 (lockfile 0.4): graph nodes, direct from the consumer node', async () => {
    const components = await extract(conanLockExtractor, 'build/conan.lock', fixture(TESTDATA, 'conan1.lock'));
    assert.deepEqual(summarize(components), [
      { name: 'boost', version: '1.83.0', direct: true, development: false },
      { name: 'cmake', version: '3.27.7', direct: true, development: true },
      { name: 'zlib', version: '1.2.13', direct: true, development: false },
    ]);
  });

  test('malformed locks', async () => {
    await assertRejects(conanLockExtractor, 'conan.lock', '{"requires": []}', /neither a Conan 2/);
    await assertRejects(conanLockExtractor, 'conan.lock', '{"version": "0.5", "requires": "zlib/1.3"}', /`requires` is not a list/);
    await assertRejects(conanLockExtractor, 'conan.lock', '{"version": "0.5", "requires": ["zlib"]}', /not a Conan reference/);
  });
});

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fixture, summarize, extract, purlOf, assertRejects } from '../testing.ts';
import { pubspecLockExtractor } from './pubspec-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('pubspec.lock', () => {
  test('hosted and git packages by dependency kind; SDK and path packages left out', async () => {
    const components = await extract(pubspecLockExtractor, 'app/pubspec.lock', fixture(TESTDATA, 'pubspec.lock'));
    assert.deepEqual(summarize(components), [
      { name: 'async', version: '2.11.0', direct: false },
      { name: 'build_runner', version: '2.4.6', direct: true, development: true },
      { name: 'http', version: '1.1.0', direct: true, development: false },
      { name: 'intl', version: '0.18.1', direct: true },
      { name: 'markdown_fork', version: '7.1.1', direct: true, development: false },
      { name: 'meta', version: '1.10.0', direct: false },
    ]);
    assert.equal(purlOf(components, 'http', '1.1.0'), 'pkg:pub/http@1.1.0');
  });

  test("hosted packages carry their archive's SHA-256; git packages and older lockfiles have none", async () => {
    const components = await extract(pubspecLockExtractor, 'app/pubspec.lock', fixture(TESTDATA, 'pubspec.lock'));
    assert.deepEqual(Object.fromEntries(components.map((c) => [c.name, c.hashes?.map((h) => `${h.algorithm}:${h.content}`)])), {
      async: ['SHA-256:947bfcf187f74dbc5e146c9eb9c0f10c9f8b30743e341481c1e2ed3ecc18c20c'],
      build_runner: ['SHA-256:10c6bcdbf9d049a0b666702cf1cee4ddfdc38f02a19d35ae392863b47519848b'],
      http: ['SHA-256:759d1a329847dd0f39226c688d3e06a6b8679668e350e2891a6474f8b4bb8525'],
      intl: ['SHA-256:3bc132a9dbce73a7e4a21a17d06e1878839ffbf975568bc875c60537824b0c4d'],
      markdown_fork: undefined,
      meta: ['SHA-256:3c74dbf8763d36539f114c799d8a2d87343b5067e9d796ca22b5eb8437090ee3'],
    });
    // Older Dart SDKs wrote no sha256.
    const older = 'packages:\n  meta:\n    dependency: transitive\n    description:\n      name: meta\n      url: "https://pub.dartlang.org"\n    source: hosted\n    version: "1.8.0"\n';
    assert.equal((await extract(pubspecLockExtractor, 'pubspec.lock', older))[0]?.hashes, undefined);
  });

  test('an unquoted version stays as written', async () => {
    const text = 'packages:\n  meta:\n    dependency: transitive\n    source: hosted\n    version: 1.10\nsdks:\n  dart: ">=3.0.0 <4.0.0"\n';
    const components = await extract(pubspecLockExtractor, 'pubspec.lock', text);
    assert.deepEqual(summarize(components), [{ name: 'meta', version: '1.10', direct: false }]);
  });

  test('malformed files are rejected', async () => {
    await assertRejects(pubspecLockExtractor, 'pubspec.lock', 'packages:\n  http: [unclosed\n', /not valid YAML/);
    await assertRejects(pubspecLockExtractor, 'pubspec.lock', 'sdks:\n  dart: ">=3.0.0"\n', /no "packages" mapping/);
    await assertRejects(pubspecLockExtractor, 'pubspec.lock', 'packages:\n  http:\n    dependency: "direct main"\n', /http lacks a version/);
  });
});

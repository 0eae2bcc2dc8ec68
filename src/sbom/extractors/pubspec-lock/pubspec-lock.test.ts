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

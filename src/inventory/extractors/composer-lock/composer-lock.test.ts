import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fixture, treeContext, summarize, extract, purlOf, assertRejects } from '../testing.ts';
import { composerLockExtractor } from './composer-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('composer.lock', () => {
  const lock = fixture(TESTDATA, 'composer.lock');

  test('packages and dev packages, direct from the sibling composer.json', async () => {
    const tree = treeContext({ 'web/composer.json': fixture(TESTDATA, 'composer.json') });
    const components = await extract(composerLockExtractor, 'web/composer.lock', lock, tree);
    assert.deepEqual(summarize(components), [
      { name: 'acme/internal-tools', version: 'dev-main', direct: true, development: false },
      { name: 'monolog/monolog', version: '2.9.1', direct: true, development: false },
      { name: 'phpunit/phpunit', version: '9.6.13', direct: true, development: true },
      { name: 'psr/log', version: '1.1.4', direct: false, development: false },
      { name: 'sebastian/diff', version: '4.0.5', direct: false, development: true },
      { name: 'symfony/http-foundation', version: 'v5.4.0', direct: false, development: false },
      { name: 'symfony/http-kernel', version: 'v5.4.0', direct: true, development: false },
    ]);
    assert.equal(purlOf(components, 'symfony/http-kernel', 'v5.4.0'), 'pkg:composer/symfony/http-kernel@v5.4.0');
  });

  test('without composer.json, or with an unreadable one, direct is unknown', async () => {
    for (const tree of [treeContext(), treeContext({ 'composer.json': '{ not json' })]) {
      const components = await extract(composerLockExtractor, 'composer.lock', lock, tree);
      assert.equal(components.length, 7);
      assert.deepEqual([...new Set(components.map((c) => c.direct))], [null]);
    }
  });

  test('malformed files are rejected', async () => {
    await assertRejects(composerLockExtractor, 'composer.lock', '{"packages": [', /not valid JSON/);
    await assertRejects(composerLockExtractor, 'composer.lock', '{"packages": {"a/b": "1.0"}}', /"packages" is not an array/);
    await assertRejects(composerLockExtractor, 'composer.lock', '{"packages": [{"name": "a/b"}]}', /packages\[0\] lacks a name or version/);
  });

  test('declared licenses and the dependency graph from require (platform requirements left out)', async () => {
    const components = await extract(composerLockExtractor, 'composer.lock', lock);
    const byName = new Map(components.map((c) => [c.name, c]));
    assert.deepEqual(byName.get('monolog/monolog')?.licenses, ['MIT']);
    assert.deepEqual(byName.get('symfony/http-kernel')?.licenses, ['MIT', 'proprietary']);
    assert.equal(byName.get('psr/log')?.licenses, undefined);
    assert.deepEqual(byName.get('monolog/monolog')?.dependsOn, ['pkg:composer/psr/log@1.1.4']);
    assert.deepEqual(byName.get('symfony/http-kernel')?.dependsOn, ['pkg:composer/psr/log@1.1.4', 'pkg:composer/symfony/http-foundation@v5.4.0']);
    assert.deepEqual(byName.get('phpunit/phpunit')?.dependsOn, ['pkg:composer/sebastian/diff@4.0.5']);
  });
});

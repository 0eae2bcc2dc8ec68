import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fixtureTree, extract, summarize, rows, purlOf, assertRejected, type Tree } from '../python/testing.ts';
import { uvLockExtractor } from './uv-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('uv.lock', () => {
  test('workspace members are first-party; their dependencies, extras and groups decide direct and development', async () => {
    const tree = fixtureTree(TESTDATA, 'uv', 'inventory');
    const components = await extract(uvLockExtractor, tree, 'inventory/uv.lock');
    assert.deepEqual(
      components.filter((c) => c.firstParty).map((c) => `${c.name}@${c.version}`).sort(),
      ['inventory-shared@0.1.0', 'legacy-sdk@0.9.0'],
    );
    assert.deepEqual(
      summarize(components.filter((c) => !c.firstParty)),
      rows('inventory/uv.lock', [
        ['annotated-types', '0.6.0', false, false],
        ['anyio', '4.2.0', false, false],
        ['colorama', '0.4.6', false, true],
        ['fastapi', '0.109.0', true, false],
        // The inventory-shared member's test group.
        ['freezegun', '1.4.0', true, true],
        ['idna', '3.6', false, false],
        ['iniconfig', '2.0.0', false, true],
        ['packaging', '23.2', false, true],
        ['pluggy', '1.4.0', false, true],
        // The postgres extra.
        ['psycopg', '3.1.17', true, false],
        ['pydantic', '2.5.3', true, false],
        ['pydantic-core', '2.14.6', false, false],
        ['pytest', '7.4.4', true, true],
        ['python-dateutil', '2.8.2', false, true],
        ['ruff', '0.1.14', true, true],
        ['six', '1.16.0', false, true],
        ['sniffio', '1.3.0', false, false],
        ['starlette', '0.35.1', false, false],
        ['structlog', '24.1.0', true, false],
        ['typing-extensions', '4.9.0', false, false],
        ['tzdata', '2023.4', false, false],
      ]),
    );
    assert.equal(purlOf(components, 'typing-extensions'), 'pkg:pypi/typing-extensions@4.9.0');
  });

  test('a virtual project root has no version and is no component', async () => {
    const lock = [
      'version = 1',
      '',
      '[[package]]',
      'name = "ops-scripts"',
      'source = { virtual = "." }',
      'dependencies = [{ name = "boto3" }]',
      '',
      '[[package]]',
      'name = "boto3"',
      'version = "1.34.20"',
      'source = { registry = "https://pypi.org/simple" }',
      '',
    ].join('\n');
    const tree: Tree = new Map([['ops/uv.lock', lock]]);
    assert.deepEqual(summarize(await extract(uvLockExtractor, tree, 'ops/uv.lock')), rows('ops/uv.lock', [['boto3', '1.34.20', true, false]]));
  });

  test('without a project root nothing is known to be direct or development', async () => {
    const lock = 'version = 1\n\n[[package]]\nname = "boto3"\nversion = "1.34.20"\nsource = { registry = "https://pypi.org/simple" }\n';
    const tree: Tree = new Map([['uv.lock', lock]]);
    assert.deepEqual(summarize(await extract(uvLockExtractor, tree, 'uv.lock')), rows('uv.lock', [['boto3', '1.34.20', null, undefined]]));
  });

  test('malformed locks are errors', async () => {
    await assertRejected(uvLockExtractor, 'uv.lock', 'version = 1\n[[package]]\nname = "six\n', /not valid TOML/);
    await assertRejected(uvLockExtractor, 'uv.lock', 'version = 1\n[[package]]\nversion = "1.16.0"\n', /package 1 has no name/);
  });

  test('the dependency graph, and the sdist hash as the release hash', async () => {
    const tree = fixtureTree(TESTDATA, 'uv', 'inventory');
    const components = await extract(uvLockExtractor, tree, 'inventory/uv.lock');
    const byPurl = new Map(components.map((c) => [c.purl, c]));
    assert.deepEqual(byPurl.get('pkg:pypi/fastapi@0.109.0')?.dependsOn, [
      'pkg:pypi/pydantic@2.5.3',
      'pkg:pypi/starlette@0.35.1',
      'pkg:pypi/typing-extensions@4.9.0',
    ]);
    assert.deepEqual(byPurl.get('pkg:pypi/inventory-shared@0.1.0')?.dependsOn, ['pkg:pypi/pydantic@2.5.3', 'pkg:pypi/structlog@24.1.0']);
    assert.deepEqual(byPurl.get('pkg:pypi/annotated-types@0.6.0')?.hashes, [
      { algorithm: 'SHA-256', content: '866bf3d13eb2bd412a1853fb34845aeaea8aa73537f8626e9d609f0038b33c29' },
    ]);
    assert.equal(byPurl.get('pkg:pypi/legacy-sdk@0.9.0')?.hashes, undefined);
  });
});

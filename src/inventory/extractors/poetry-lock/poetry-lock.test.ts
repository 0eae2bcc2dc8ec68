import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fixtureTree, extract, summarize, rows, purlOf, withDirect, assertRejected } from '../python/testing.ts';
import { poetryLockExtractor } from './poetry-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('poetry.lock', () => {
  const lockV1 = rows('services/billing-worker/poetry.lock', [
    ['attrs', '22.2.0', false, true],
    ['certifi', '2022.12.7', false, false],
    ['charset-normalizer', '3.0.1', false, false],
    ['colorama', '0.4.6', false, true],
    ['greenlet', '2.0.2', false, false],
    ['idna', '3.4', false, false],
    ['iniconfig', '2.0.0', false, true],
    ['packaging', '23.0', false, true],
    ['pluggy', '1.0.0', false, true],
    ['PySocks', '1.7.1', false, false],
    ['pytest', '7.2.1', true, true],
    ['requests', '2.28.2', true, false],
    ['SQLAlchemy', '1.4.46', true, false],
    ['tomli', '2.0.1', false, true],
    ['urllib3', '1.26.14', false, false],
  ]);

  test('lock version 1.1: development from `category`, direct from pyproject.toml', async () => {
    const tree = fixtureTree(TESTDATA, 'poetry-1.1', 'services/billing-worker');
    const components = await extract(poetryLockExtractor, tree, 'services/billing-worker/poetry.lock');
    assert.deepEqual(summarize(components), lockV1);
    assert.equal(purlOf(components, 'SQLAlchemy'), 'pkg:pypi/sqlalchemy@1.4.46');
    assert.equal(purlOf(components, 'PySocks'), 'pkg:pypi/pysocks@1.7.1');
  });

  test("lock version 1.1: the sdist's hash from `[metadata.files]`, by the name however it is spelled", async () => {
    const tree = fixtureTree(TESTDATA, 'poetry-1.1', '');
    const components = await extract(poetryLockExtractor, tree, 'poetry.lock');
    const hashOf = (name: string) => components.find((c) => c.name === name)?.hashes;
    assert.deepEqual(hashOf('SQLAlchemy'), [{ algorithm: 'SHA-256', content: '509bb07e0b399124c8f1813e6812b9d250e5601c1a0125afe08f4cfa75c2d935' }]);
    assert.deepEqual(hashOf('attrs'), [{ algorithm: 'SHA-256', content: '39256b6f57f6dba41820b583c2fc0faa8b7a38d8049f71eabfcc716a3625a7c5' }]);
    assert.ok(components.every((c) => c.hashes?.length === 1));
  });

  test('lock version 1.1: a name locked at two versions takes the files of each version', async () => {
    const lock = [
      '[[package]]\nname = "numpy"\nversion = "1.24.4"\ndescription = ""\ncategory = "main"\noptional = false\npython-versions = ">=3.8"',
      '[[package]]\nname = "numpy"\nversion = "1.26.4"\ndescription = ""\ncategory = "main"\noptional = false\npython-versions = ">=3.9"',
      '[metadata]\nlock-version = "1.1"\npython-versions = "^3.8"\ncontent-hash = "0d1c2b3a"',
      '[metadata.files]\nnumpy = [',
      '    {file = "numpy-1.24.4-cp38-cp38-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", hash = "sha256:f136bab9c2cfd8da131132c2cf6cc27331dd6fae65f95f69dcd4ae3c3639c463"},',
      '    {file = "numpy-1.24.4.tar.gz", hash = "sha256:80f5e3a4e498641401868df4208b74581206afbee7cf7b8329daae82676d9463"},',
      '    {file = "numpy-1.26.4-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", hash = "sha256:f870204a840a60da0b12273ef34f7051e98c3b5961b61b0c2c1be6dfd64fbcd3"},',
      '    {file = "numpy-1.26.4.tar.gz", hash = "sha256:2a02aba9ed12e4ac4eb3ea9421c420301a0c6460d9830d74a9df87efa4912010"},',
      ']',
    ].join('\n');
    const components = await extract(poetryLockExtractor, new Map([['poetry.lock', lock]]), 'poetry.lock');
    assert.deepEqual(
      components.map((c) => [c.version, c.hashes?.[0]?.content]),
      [
        ['1.24.4', '80f5e3a4e498641401868df4208b74581206afbee7cf7b8329daae82676d9463'],
        ['1.26.4', '2a02aba9ed12e4ac4eb3ea9421c420301a0c6460d9830d74a9df87efa4912010'],
      ],
    );
  });

  test('lock version 2.0: development follows the dependency edges from the declared groups; path projects are first-party', async () => {
    const tree = fixtureTree(TESTDATA, 'poetry-2.0', 'invoice-api');
    const components = await extract(poetryLockExtractor, tree, 'invoice-api/poetry.lock');
    assert.deepEqual(components.filter((c) => c.firstParty).map((c) => `${c.name}@${c.version}`), ['billing-core@0.1.0']);
    assert.deepEqual(
      summarize(components.filter((c) => !c.firstParty)),
      rows('invoice-api/poetry.lock', [
        ['annotated-types', '0.6.0', false, false],
        ['anyio', '3.7.1', false, false],
        // Needed by both httpx (dev) and internal-sdk (runtime).
        ['certifi', '2023.11.17', false, false],
        ['colorama', '0.4.6', false, true],
        ['fastapi', '0.104.1', true, false],
        ['h11', '0.14.0', false, true],
        ['httpcore', '1.0.2', false, true],
        ['httpx', '0.25.2', true, true],
        ['idna', '3.6', false, false],
        ['iniconfig', '2.0.0', false, true],
        ['internal-sdk', '2.4.0', true, false],
        ['packaging', '23.2', false, true],
        ['pluggy', '1.3.0', false, true],
        ['pydantic', '2.5.2', false, false],
        ['pydantic-core', '2.14.5', false, false],
        ['pytest', '7.4.3', true, true],
        // Reached through the billing-core path dependency, itself a first-party component.
        ['python-dateutil', '2.8.2', false, false],
        ['ruff', '0.1.6', true, true],
        ['six', '1.16.0', false, false],
        ['sniffio', '1.3.0', false, false],
        ['starlette', '0.27.0', false, false],
        ['typing-extensions', '4.8.0', false, false],
      ]),
    );
  });

  const lockV21 = rows('notifier/poetry.lock', [
    ['async-timeout', '4.0.3', false, false],
    ['colorama', '0.4.6', false, true],
    ['exceptiongroup', '1.2.0', false, true],
    ['iniconfig', '2.0.0', false, true],
    ['marshmallow', '3.20.2', true, false],
    ['packaging', '23.2', false, false],
    ['pluggy', '1.4.0', false, true],
    ['proto-plus', '1.22.3', true, false],
    ['proto-plus', '1.23.0', true, false],
    ['protobuf', '4.25.3', false, false],
    ['pytest', '8.0.2', true, true],
    ['redis', '5.0.1', true, false],
    ['tomli', '2.0.1', false, true],
  ]);

  test('lock version 2.1: development from `groups`, direct from PEP 621 dependencies and extras', async () => {
    const tree = fixtureTree(TESTDATA, 'poetry-2.1', 'notifier');
    const components = await extract(poetryLockExtractor, tree, 'notifier/poetry.lock');
    assert.deepEqual(summarize(components), lockV21);
    assert.equal(purlOf(components, 'proto-plus', '1.22.3'), 'pkg:pypi/proto-plus@1.22.3');
  });

  test('without pyproject.toml nothing is known to be direct, and a 2.0 lock says nothing about development', async () => {
    const v21 = fixtureTree(TESTDATA, 'poetry-2.1', 'notifier');
    v21.delete('notifier/pyproject.toml');
    assert.deepEqual(summarize(await extract(poetryLockExtractor, v21, 'notifier/poetry.lock')), withDirect(lockV21, null));

    const v20 = fixtureTree(TESTDATA, 'poetry-2.0', 'invoice-api');
    v20.delete('invoice-api/pyproject.toml');
    const components = await extract(poetryLockExtractor, v20, 'invoice-api/poetry.lock');
    assert.equal(components.length, 23);
    assert.ok(components.every((c) => c.direct === null && !('development' in c)));
  });

  test('a pyproject.toml that is not TOML costs only the direct flags', async () => {
    const tree = fixtureTree(TESTDATA, 'poetry-1.1', 'services/billing-worker');
    tree.set('services/billing-worker/pyproject.toml', '[tool.poetry\nname = ');
    const components = await extract(poetryLockExtractor, tree, 'services/billing-worker/poetry.lock');
    assert.deepEqual(summarize(components), withDirect(lockV1, null));
  });

  test('malformed locks are errors', async () => {
    await assertRejected(poetryLockExtractor, 'poetry.lock', '[[package]\nname = "six"\n', /not valid TOML/);
    await assertRejected(poetryLockExtractor, 'poetry.lock', 'package = "six"\n', /not an array of tables/);
    await assertRejected(poetryLockExtractor, 'poetry.lock', '[[package]]\nname = "six"\n', /package 1 has no name or version/);
  });

  test('2.1: the dependency graph (every version of a name locked under markers), and the sdist hash', async () => {
    const tree = fixtureTree(TESTDATA, 'poetry-2.1', '');
    const components = await extract(poetryLockExtractor, tree, 'poetry.lock');
    const byPurl = new Map(components.map((c) => [c.purl, c]));
    assert.deepEqual(byPurl.get('pkg:pypi/redis@5.0.1')?.dependsOn, ['pkg:pypi/async-timeout@4.0.3']);
    assert.deepEqual(byPurl.get('pkg:pypi/proto-plus@1.23.0')?.dependsOn, ['pkg:pypi/protobuf@4.25.3']);
    assert.equal(byPurl.get('pkg:pypi/tomli@2.0.1')?.dependsOn, undefined);
    assert.deepEqual(byPurl.get('pkg:pypi/async-timeout@4.0.3')?.hashes, [
      { algorithm: 'SHA-256', content: 'cdd86ac5270a0b61b9b6e38d529e8b4e7cdf40dfbd3350639483a44e77366509' },
    ]);
  });
});

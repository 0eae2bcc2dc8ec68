import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims, type Extractor } from '../extractor.ts';
import { fixtureTree, extract, summarize, rows, purlOf, withDirect, assertRejected } from '../python/testing.ts';
import { pdmLockExtractor } from './pdm-lock.ts';
import { pipfileLockExtractor } from '../pipfile-lock/pipfile-lock.ts';
import { poetryLockExtractor } from '../poetry-lock/poetry-lock.ts';
import { uvLockExtractor } from '../uv-lock/uv-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('pdm.lock', () => {
  const withGroups = rows('gateway/pdm.lock', [
    ['anyio', '4.2.0', false, false],
    ['certifi', '2024.2.2', false, false],
    ['click', '8.1.7', false, false],
    // In both the default and the test group.
    ['colorama', '0.4.6', false, false],
    ['h11', '0.14.0', false, false],
    ['httpcore', '1.0.2', false, false],
    ['httptools', '0.6.1', false, false],
    ['httpx', '0.26.0', true, false],
    ['idna', '3.6', false, false],
    ['iniconfig', '2.0.0', false, true],
    ['packaging', '23.2', false, true],
    ['pluggy', '1.4.0', false, true],
    ['pytest', '8.0.0', true, true],
    ['python-dotenv', '1.0.1', false, false],
    ['ruff', '0.2.1', true, true],
    ['sniffio', '1.3.0', false, false],
    // The socks extra: locked in its own group, but shipped at runtime.
    ['socksio', '1.0.0', true, false],
    // Locked twice, plain and with the standard extra.
    ['uvicorn', '0.27.0', true, false],
  ]);

  test('groups decide development, pyproject.toml decides direct; editable packages are first-party', async () => {
    const tree = fixtureTree(TESTDATA, 'pdm-groups', 'gateway');
    const components = await extract(pdmLockExtractor, tree, 'gateway/pdm.lock');
    assert.deepEqual(components.filter((c) => c.firstParty).map((c) => `${c.name}@${c.version}`), ['testkit@0.1.0']);
    assert.deepEqual(summarize(components.filter((c) => !c.firstParty)), withGroups);
    assert.equal(purlOf(components, 'python-dotenv'), 'pkg:pypi/python-dotenv@1.0.1');
  });

  test('without pyproject.toml every group but default counts as development', async () => {
    const tree = fixtureTree(TESTDATA, 'pdm-groups', 'gateway');
    tree.delete('gateway/pyproject.toml');
    const expected = withDirect(withGroups, null).map((s) => (s.name === 'socksio' ? { ...s, development: true } : s));
    const components = await extract(pdmLockExtractor, tree, 'gateway/pdm.lock');
    assert.deepEqual(components.filter((c) => c.firstParty).map((c) => `${c.name}@${c.version}`), ['testkit@0.1.0']);
    assert.deepEqual(summarize(components.filter((c) => !c.firstParty)), expected);
  });

  test('a lock without groups: development follows the dependency edges from pyproject.toml', async () => {
    const tree = fixtureTree(TESTDATA, 'pdm-no-groups', 'status');
    const components = await extract(pdmLockExtractor, tree, 'status/pdm.lock');
    assert.deepEqual(
      summarize(components),
      rows('status/pdm.lock', [
        ['blinker', '1.7.0', false, false],
        ['click', '8.1.7', false, false],
        ['colorama', '0.4.6', false, false],
        ['flask', '3.0.2', true, false],
        ['iniconfig', '2.0.0', false, true],
        ['itsdangerous', '2.1.2', false, false],
        ['jinja2', '3.1.3', false, false],
        ['markupsafe', '2.1.5', false, false],
        ['packaging', '23.2', false, true],
        ['pluggy', '1.4.0', false, true],
        ['pytest', '8.0.0', true, true],
        ['werkzeug', '3.0.1', false, false],
      ]),
    );
  });

  test('path dependencies on directories are first-party; the project at the lock\'s own folder is not a component', async () => {
    const tree = fixtureTree(TESTDATA, 'pdm-no-groups', 'status');
    const local = [
      '[[package]]\nname = "status-page"\nversion = "2.0.1"\npath = "."\neditable = true\n',
      '[[package]]\nname = "status-client"\nversion = "0.3.0"\nurl = "file:///${PROJECT_ROOT}/clients/python"\n',
      '[[package]]\nname = "legacy-probe"\nversion = "1.2.0"\npath = "./vendor/legacy_probe-1.2.0.tar.gz"\n',
    ];
    tree.set('status/pdm.lock', `${tree.get('status/pdm.lock')}\n${local.join('\n')}`);
    const components = await extract(pdmLockExtractor, tree, 'status/pdm.lock');
    assert.deepEqual(components.filter((c) => c.firstParty).map((c) => `${c.name}@${c.version}`), ['status-client@0.3.0']);
    // A local archive is a built distribution of a named release, not a source tree.
    assert.equal(purlOf(components, 'legacy-probe'), 'pkg:pypi/legacy-probe@1.2.0');
    assert.ok(!components.some((c) => c.name === 'status-page'));
  });

  test('malformed locks are errors', async () => {
    await assertRejected(pdmLockExtractor, 'pdm.lock', '[metadata]\ngroups = ["default"\n', /not valid TOML/);
    await assertRejected(pdmLockExtractor, 'pdm.lock', '[package]\nname = "six"\n', /not an array of tables/);
  });
});

test('lockfile extractors match their own file names', () => {
  const cases: [Extractor, string][] = [
    [poetryLockExtractor, 'poetry.lock'],
    [pipfileLockExtractor, 'Pipfile.lock'],
    [uvLockExtractor, 'uv.lock'],
    [pdmLockExtractor, 'pdm.lock'],
  ];
  for (const [extractor, fileName] of cases) {
    assert.equal(extractor.ecosystem, 'PyPI');
    for (const [, other] of cases) assert.equal(claims(extractor, other), other === fileName, `${extractor.id} on ${other}`);
    assert.ok(!claims(extractor, 'requirements.txt'));
  }
});

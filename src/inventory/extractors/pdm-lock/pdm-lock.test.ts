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

  test("file hashes: the sdist's, else the only file's; platform wheels alone give none", async () => {
    const tree = fixtureTree(TESTDATA, 'pdm-groups', 'gateway');
    const components = await extract(pdmLockExtractor, tree, 'gateway/pdm.lock');
    const hashOf = (name: string) => components.find((c) => c.name === name)?.hashes;
    assert.deepEqual(hashOf('anyio'), [{ algorithm: 'SHA-256', content: '3cbf338ef9a5c9c47120bf0cd57c6e1a59c779209e1463365892461ef59951d2' }]);
    // locked twice (plain and with an extra), one component with the sdist's hash
    assert.deepEqual(hashOf('uvicorn'), [{ algorithm: 'SHA-256', content: '73a3a1c59eef0b2e76deab0d6dc7e12c5e6c778f053fd733c5debbcc89a8e894' }]);
    assert.equal(hashOf('testkit'), undefined);
    assert.ok(components.filter((c) => !c.firstParty).every((c) => c.hashes?.length === 1));

    const lock = [
      '[[package]]\nname = "orjson"\nversion = "3.9.15"\nfiles = [',
      '    {file = "orjson-3.9.15-cp312-cp312-macosx_10_15_x86_64.macosx_11_0_arm64.macosx_10_15_universal2.whl", hash = "sha256:d61f7ce4727a9fa7680cd6f3986b0e2c732639f46a5e0156e550e35258aa313a"},',
      '    {file = "orjson-3.9.15-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", hash = "sha256:4feeb41882e8aa17634b589533baafdceb387e01e117b1ec65534ec724023d04"},',
      ']',
      // locks written with `--static-urls` name each file by its URL
      '[[package]]\nname = "sniffio"\nversion = "1.3.1"\nfiles = [',
      '    {url = "https://files.pythonhosted.org/packages/e9/44/75a9c9421471a6c4805dbf2356f7c181a29c1879239abab1ea2cc8f38b40/sniffio-1.3.1-py3-none-any.whl", hash = "sha256:2f6da418d1f1e0fddd844478f41680e794e6051915791a034ff65e5f100525a2"},',
      '    {url = "https://files.pythonhosted.org/packages/a2/87/a6771e1546d97e7e041b6ae58d80074f81b7d5121207425c964ddf5cfdbd/sniffio-1.3.1.tar.gz", hash = "sha256:f4324edc670a0f49750a81b895f35c3adb843cca46f0530f79fc1babb23789dc"},',
      ']',
      '[[package]]\nname = "typing-extensions"\nversion = "4.10.0"\nfiles = [',
      '    {file = "typing_extensions-4.10.0-py3-none-any.whl", hash = "sha256:69b1a937c3a517342112fb4c6df7e72fc39a38e7891a5730ed4985b5214b5475"},',
      ']',
    ].join('\n');
    const hashes = Object.fromEntries((await extract(pdmLockExtractor, new Map([['pdm.lock', lock]]), 'pdm.lock')).map((c) => [c.name, c.hashes]));
    assert.deepEqual(hashes, {
      orjson: undefined,
      sniffio: [{ algorithm: 'SHA-256', content: 'f4324edc670a0f49750a81b895f35c3adb843cca46f0530f79fc1babb23789dc' }],
      'typing-extensions': [{ algorithm: 'SHA-256', content: '69b1a937c3a517342112fb4c6df7e72fc39a38e7891a5730ed4985b5214b5475' }],
    });
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

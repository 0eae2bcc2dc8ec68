import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims } from '../extractor.ts';
import { assertRejected, extract, fixtureTree, purlOf } from '../python/testing.ts';
import { pylockExtractor } from './pylock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('pylock.toml (PEP 751)', () => {
  test('claims pylock.toml and named locks', () => {
    for (const name of ['pylock.toml', 'pylock.dev.toml']) assert.ok(claims(pylockExtractor, name), name);
    for (const name of ['pyproject.toml', 'pylock.a.b.toml', 'poetry.lock']) assert.ok(!claims(pylockExtractor, name), name);
  });

  test('index packages with direct from pyproject.toml; directory packages first-party; unversioned VCS skipped', async () => {
    const tree = fixtureTree(TESTDATA, 'api', 'services/api');
    const components = await extract(pylockExtractor, tree, 'services/api/pylock.toml');
    assert.deepEqual(
      components.map((c) => [c.name, c.version, c.direct, c.firstParty ?? false]),
      [
        ['anyio', '4.8.0', false, false],
        ['fastapi', '0.115.8', true, false],
        ['idna', '3.10', false, false],
        ['pytest', '8.3.4', true, false],
        ['billing-core', '', null, true],
      ],
    );
    assert.equal(purlOf(components, 'fastapi'), 'pkg:pypi/fastapi@0.115.8');
    assert.ok(components.every((c) => c.ecosystem === 'PyPI' && c.sourceFile === 'services/api/pylock.toml'));

    tree.delete('services/api/pyproject.toml');
    const alone = await extract(pylockExtractor, tree, 'services/api/pylock.toml');
    assert.ok(alone.every((c) => c.direct === null));
  });

  test('malformed locks', async () => {
    await assertRejected(pylockExtractor, 'pylock.toml', '[[packages]\n', /not valid TOML/);
    await assertRejected(pylockExtractor, 'pylock.toml', '[[packages]]\nname = "x"\n', /lock-version/);
    await assertRejected(pylockExtractor, 'pylock.toml', 'lock-version = "1.0"\npackages = "x"\n', /not an array/);
    await assertRejected(pylockExtractor, 'pylock.toml', 'lock-version = "1.0"\n[[packages]]\nversion = "1"\n', /package 1 has no name/);
  });
});

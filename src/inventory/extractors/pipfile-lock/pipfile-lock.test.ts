import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fixtureTree, extract, summarize, rows, purlOf, withDirect, assertRejected } from '../python/testing.ts';
import { pipfileLockExtractor } from './pipfile-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('Pipfile.lock', () => {
  const locked = [
    ...rows('legacy/Pipfile.lock', [
      ['asgiref', '3.7.2', false, false],
      // Locked in both sections: a runtime package.
      ['certifi', '2023.11.17', false, false],
      ['charset-normalizer', '3.3.2', false, false],
      ['django', '4.2.7', true, false],
      ['idna', '3.6', false, false],
      ['iniconfig', '2.0.0', false, true],
      ['packaging', '23.2', false, true],
      ['pluggy', '1.3.0', false, true],
      ['pysocks', '1.7.1', false, false],
      ['pytest', '7.4.3', true, true],
      ['requests', '2.31.0', true, false],
      ['sqlparse', '0.4.4', false, false],
      ['urllib3', '2.1.0', false, false],
    ]),
  ];

  test('default and develop sections, direct from the Pipfile; VCS and path entries skipped', async () => {
    const tree = fixtureTree(TESTDATA, 'pipenv', 'legacy');
    const components = await extract(pipfileLockExtractor, tree, 'legacy/Pipfile.lock');
    assert.deepEqual(summarize(components), locked);
    assert.equal(purlOf(components, 'django'), 'pkg:pypi/django@4.2.7');
  });

  test('without a Pipfile nothing is known to be direct', async () => {
    const tree = fixtureTree(TESTDATA, 'pipenv', 'legacy');
    tree.delete('legacy/Pipfile');
    assert.deepEqual(summarize(await extract(pipfileLockExtractor, tree, 'legacy/Pipfile.lock')), withDirect(locked, null));
  });

  test("a release's hash only when it has one file: the hashes of several carry no file names to tell the sdist by", async () => {
    const tree = fixtureTree(TESTDATA, 'release-files', '');
    const components = await extract(pipfileLockExtractor, tree, 'Pipfile.lock');
    const hashes = Object.fromEntries(components.map((c) => [c.name, c.hashes]));
    assert.deepEqual(hashes, {
      // an sdist-only release
      docopt: [{ algorithm: 'SHA-256', content: '49b3a825280bd66b3aa83585ef59c4a8c82f2c8a522dbe754a8bc8d08c85c491' }],
      // a wheel and an sdist
      six: undefined,
    });
    const locked = await extract(pipfileLockExtractor, fixtureTree(TESTDATA, 'pipenv', ''), 'Pipfile.lock');
    assert.ok(locked.every((c) => c.hashes === undefined));
  });

  test('malformed locks are errors', async () => {
    await assertRejected(pipfileLockExtractor, 'Pipfile.lock', '{"default": {', /not valid JSON/);
    await assertRejected(pipfileLockExtractor, 'Pipfile.lock', '["requests"]', /not a JSON object/);
    await assertRejected(pipfileLockExtractor, 'Pipfile.lock', '{"default": ["requests==2.31.0"]}', /"default" is not an object/);
  });
});

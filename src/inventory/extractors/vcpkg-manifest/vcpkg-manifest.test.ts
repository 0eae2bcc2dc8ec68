import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims } from '../extractor.ts';
import { assertRejects, extract, fixture, summarize } from '../testing.ts';
import { vcpkgManifestExtractor } from './vcpkg-manifest.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('vcpkg.json', () => {
  test('claims vcpkg.json only', () => {
    assert.ok(claims(vcpkgManifestExtractor, 'vcpkg.json'));
    assert.ok(!claims(vcpkgManifestExtractor, 'vcpkg-configuration.json'));
  });

  test('versions from overrides and version>=, baseline ports without a version, host tools as development', async () => {
    const components = await extract(vcpkgManifestExtractor, 'vcpkg.json', fixture(TESTDATA, 'vcpkg.json'));
    assert.deepEqual(summarize(components), [
      { name: 'curl', version: '', direct: true, development: false },
      { name: 'fmt', version: '10.1.1', direct: true, development: false },
      { name: 'libpng', version: '', direct: true, development: false },
      { name: 'openssl', version: '3.0.8', direct: true, development: false },
      { name: 'vcpkg-cmake', version: '', direct: true, development: true },
      // Overridden but not declared: a port a dependency pulls in.
      { name: 'zlib', version: '1.2.13', direct: false },
    ]);
    const byName = new Map(components.map((c) => [c.name, c]));
    assert.equal(byName.get('fmt')?.note, undefined);
    assert.match(byName.get('openssl')?.note ?? '', /version>= 3\.0\.8: the lowest version allowed; the baseline 3426db05b996/);
    assert.match(byName.get('curl')?.note ?? '', /chosen by the builtin-baseline 3426db05b996/);
    assert.equal(byName.get('fmt')?.purl, 'pkg:vcpkg/fmt@10.1.1');
  });

  test('malformed manifests', async () => {
    await assertRejects(vcpkgManifestExtractor, 'vcpkg.json', '{"dependencies": "fmt"}', /`dependencies` is not a list/);
    await assertRejects(vcpkgManifestExtractor, 'vcpkg.json', '{"dependencies": [{"features": []}]}', /a dependency has no `name`/);
    await assertRejects(vcpkgManifestExtractor, 'vcpkg.json', '{"overrides": [{"version": "1"}]}', /an override has no `name`/);
  });
});

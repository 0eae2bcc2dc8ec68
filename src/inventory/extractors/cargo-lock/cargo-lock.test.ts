import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fixture, summarize, extract, purlOf, assertRejects } from '../testing.ts';
import { cargoLockExtractor } from './cargo-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('Cargo.lock', () => {
  test('registry and git packages; direct ones are those the workspace members depend on; members first-party', async () => {
    const components = await extract(cargoLockExtractor, 'Cargo.lock', fixture(TESTDATA, 'Cargo.lock'));
    assert.deepEqual(components.filter((c) => c.firstParty).map((c) => `${c.name}@${c.version}`), ['acme-cli@0.1.0', 'acme-core@0.1.0']);
    assert.deepEqual(summarize(components.filter((c) => !c.firstParty)), [
      { name: 'clap', version: '4.4.6', direct: true },
      { name: 'clap_builder', version: '4.4.6', direct: false },
      { name: 'hyper', version: '1.0.0-rc.4', direct: true },
      { name: 'legacy-config', version: '0.3.0', direct: true },
      { name: 'pin-project-lite', version: '0.2.13', direct: false },
      { name: 'serde', version: '0.9.15', direct: false },
      { name: 'serde', version: '1.0.188', direct: true },
      { name: 'tokio', version: '1.32.0', direct: true },
    ]);
    assert.equal(purlOf(components, 'serde', '1.0.188'), 'pkg:cargo/serde@1.0.188');
  });

  test('the dependency graph, with a crate of two versions named by version, and checksums as SHA-256', async () => {
    const components = await extract(cargoLockExtractor, 'Cargo.lock', fixture(TESTDATA, 'Cargo.lock'));
    const of = (name: string, version: string) => components.find((c) => c.name === name && c.version === version);
    assert.deepEqual(of('acme-cli', '0.1.0')?.dependsOn, [
      'pkg:cargo/acme-core@0.1.0',
      'pkg:cargo/clap@4.4.6',
      'pkg:cargo/legacy-config@0.3.0',
      'pkg:cargo/serde@1.0.188',
    ]);
    assert.deepEqual(of('legacy-config', '0.3.0')?.dependsOn, ['pkg:cargo/serde@0.9.15']);
    assert.equal(of('clap_builder', '4.4.6')?.dependsOn, undefined);
    assert.deepEqual(of('clap', '4.4.6')?.hashes, [{ algorithm: 'SHA-256', content: 'd04704f56c2cde07f43e8e2c154b43f216dc5c92fc98ada720177362f953b956' }]);
    assert.equal(of('hyper', '1.0.0-rc.4')?.hashes, undefined); // a git source has no checksum
  });

  test('version 1 lockfiles, with the root crate in [root] and sources in dependency entries', async () => {
    const components = await extract(cargoLockExtractor, 'legacy/Cargo.lock', fixture(TESTDATA, 'Cargo.v1.lock'));
    assert.deepEqual(components.filter((c) => c.firstParty).map((c) => `${c.name}@${c.version}`), ['tiny-app@0.2.0']);
    assert.deepEqual(summarize(components.filter((c) => !c.firstParty)), [
      { name: 'itoa', version: '0.4.8', direct: false },
      { name: 'serde', version: '1.0.130', direct: false },
      { name: 'serde_json', version: '1.0.68', direct: true },
    ]);
  });

  test('malformed files are rejected', async () => {
    await assertRejects(cargoLockExtractor, 'Cargo.lock', '[[package]]\nname = "serde"\nversion = ', /not valid TOML/);
    await assertRejects(cargoLockExtractor, 'Cargo.lock', 'version = 3\n\n[[package]]\nname = "serde"\n', /lacks a name or version/);
    await assertRejects(cargoLockExtractor, 'Cargo.lock', 'version = 3\n', /no \[\[package\]\] entries/);
  });
});

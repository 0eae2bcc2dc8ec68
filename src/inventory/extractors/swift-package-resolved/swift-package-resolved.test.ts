import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims } from '../extractor.ts';
import { assertRejects, extract, fixture } from '../testing.ts';
import { swiftPackageResolvedExtractor } from './swift-package-resolved.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');
const FILE = 'App.xcodeproj/project.xcworkspace/xcshareddata/swiftpm/Package.resolved';

async function read(version: string) {
  const components = await extract(swiftPackageResolvedExtractor, FILE, fixture(TESTDATA, `Package.resolved.${version}`));
  return components.map((c) => [c.name, c.version, c.firstParty ?? false]);
}

describe('Package.resolved', () => {
  test('claims Package.resolved only', () => {
    assert.ok(claims(swiftPackageResolvedExtractor, 'Package.resolved'));
    assert.ok(!claims(swiftPackageResolvedExtractor, 'Package.swift'));
  });

  test('version 1: repository URLs as names, a branch pin at its revision', async () => {
    assert.deepEqual(await read('v1'), [
      ['github.com/Alamofire/Alamofire', '5.8.1', false],
      ['github.com/kishikawakatsumi/KeychainAccess', '84e546727d66f1adc5439debad16270d0fdd04e7', false],
    ]);
  });

  test('version 2: SSH locations normalized, local checkouts first-party', async () => {
    assert.deepEqual(await read('v2'), [
      ['github.com/apple/swift-log', '1.5.4', false],
      ['github.com/apple/swift-nio', '2.63.0', false],
      ['/Users/dev/src/design-system', '0c1e5f3a8c2d4b6e7f8091a2b3c4d5e6f7081920', true],
    ]);
  });

  test('version 3', async () => {
    assert.deepEqual(await read('v3'), [
      ['github.com/vapor/vapor', '4.92.4', false],
      ['github.com/apple/swift-crypto', '3.3.0', false],
    ]);
    const components = await extract(swiftPackageResolvedExtractor, FILE, fixture(TESTDATA, 'Package.resolved.v3'));
    assert.equal(components[0]!.purl, 'pkg:swift/github.com/vapor/vapor@4.92.4');
  });

  test('malformed files', async () => {
    await assertRejects(swiftPackageResolvedExtractor, 'Package.resolved', '{"version": 4, "pins": []}', /unknown Package.resolved version 4/);
    await assertRejects(swiftPackageResolvedExtractor, 'Package.resolved', '{"version": 2}', /no `pins`/);
    await assertRejects(swiftPackageResolvedExtractor, 'Package.resolved', '{"version": 2, "pins": [{"identity": "x"}]}', /pin 1 has no location/);
  });
});

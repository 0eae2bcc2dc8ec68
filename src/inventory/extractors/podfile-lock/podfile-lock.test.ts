import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims } from '../extractor.ts';
import { assertRejects, extract, fixture, summarize } from '../testing.ts';
import { podfileLockExtractor } from './podfile-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('Podfile.lock', () => {
  test('claims Podfile.lock only', () => {
    assert.ok(claims(podfileLockExtractor, 'Podfile.lock'));
    assert.ok(!claims(podfileLockExtractor, 'Podfile'));
  });

  test('pods with subspecs folded into their pod, direct from DEPENDENCIES, path pods first-party', async () => {
    const components = await extract(podfileLockExtractor, 'ios/Podfile.lock', fixture(TESTDATA, 'Podfile.lock'));
    assert.deepEqual(summarize(components), [
      { name: 'Alamofire', version: '5.8.1', direct: true },
      { name: 'Firebase', version: '10.18.0', direct: true },
      { name: 'FirebaseCore', version: '10.18.0', direct: false },
      { name: 'FirebaseCoreInternal', version: '10.18.0', direct: false },
      { name: 'FirebaseCrashlytics', version: '10.18.0', direct: false },
      { name: 'GoogleUtilities', version: '7.12.0', direct: false },
      { name: 'PromisesObjC', version: '2.3.1', direct: false },
      { name: 'SnapKit', version: '5.6.0', direct: true },
      { name: 'WalletUI', version: '0.4.0', direct: true },
    ]);
    assert.deepEqual(components.filter((c) => c.firstParty).map((c) => c.name), ['WalletUI']);
    assert.equal(components[0]!.purl, 'pkg:cocoapods/Alamofire@5.8.1');
  });

  test('malformed files', async () => {
    await assertRejects(podfileLockExtractor, 'Podfile.lock', 'PODS: [\n', /not valid YAML/);
    await assertRejects(podfileLockExtractor, 'Podfile.lock', 'COCOAPODS: 1.14.3\n', /no `PODS`/);
    await assertRejects(podfileLockExtractor, 'Podfile.lock', 'PODS:\n  - Alamofire\n', /PODS entry 1/);
  });
});

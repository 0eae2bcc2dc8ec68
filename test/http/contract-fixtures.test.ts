import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { CONTRACT_FIXTURES_DIR, contractDrift, contractFiles, PUBLISHED_CONTRACT_DIR, syncContract } from '../support/contract.ts';

// The conformance test reads the contract from test/fixtures/contract so a bare clone can run it; these
// tests keep that copy honest.

describe('the contract fixtures', () => {
  test('hold both route families', () => {
    assert.deepEqual(contractFiles(CONTRACT_FIXTURES_DIR), ['applications-family.openapi.json', 'device-flow.schemas.json', 'repositories-family.openapi.json']);
  });

  const published = fs.existsSync(PUBLISHED_CONTRACT_DIR);
  test(
    'equal the published contract',
    { skip: published ? false : `no published contract at ${PUBLISHED_CONTRACT_DIR} (set BULWARK_CONTRACT_DIR to check against one)` },
    () => {
      assert.deepEqual(contractDrift(PUBLISHED_CONTRACT_DIR, CONTRACT_FIXTURES_DIR), [], 'run `npm run contract:sync` and commit the fixtures');
    },
  );

  test('sync makes the fixtures an exact copy and reports what changed', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-contract-'));
    try {
      const publishedDir = path.join(root, 'published');
      const fixturesDir = path.join(root, 'fixtures');
      fs.mkdirSync(publishedDir);
      fs.mkdirSync(fixturesDir);
      fs.writeFileSync(path.join(publishedDir, 'a.openapi.json'), '{"openapi":"3.1.0","v":2}');
      fs.writeFileSync(path.join(publishedDir, 'notes.md'), 'not a contract document');
      fs.writeFileSync(path.join(fixturesDir, 'a.openapi.json'), '{"openapi":"3.1.0","v":1}');
      fs.writeFileSync(path.join(fixturesDir, 'gone.openapi.json'), '{}');

      assert.deepEqual(contractDrift(publishedDir, fixturesDir), [
        'a.openapi.json: differs from the published contract',
        'gone.openapi.json: no longer published',
      ]);
      assert.deepEqual(syncContract(publishedDir, fixturesDir), ['a.openapi.json', 'gone.openapi.json']);
      assert.deepEqual(contractDrift(publishedDir, fixturesDir), []);
      assert.deepEqual(fs.readdirSync(fixturesDir), ['a.openapi.json']);
      assert.equal(fs.readFileSync(path.join(fixturesDir, 'a.openapi.json'), 'utf8'), '{"openapi":"3.1.0","v":2}');
      assert.deepEqual(syncContract(publishedDir, fixturesDir), []);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

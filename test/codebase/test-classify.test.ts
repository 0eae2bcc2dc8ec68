import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { classifyTestFiles, DATABASE_FREE, DATABASE_SETTING_NAME, opensDatabase, runtimeImports } from '../../scripts/test-classify.ts';

// npm test runs a file on each database only when scripts/test-classify.ts reads it as opening one.

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the test runner classifies files', () => {
  test('a file driving the app through test/support/api.ts opens a database', () => {
    assert.equal(opensDatabase('test/organizations/units.test.ts'), true);
    assert.equal(opensDatabase('test/support/api.ts'), true);
  });

  test('a file creating a test database itself opens one', () => {
    assert.equal(opensDatabase('test/inventory/osv-sync.test.ts'), true);
  });

  test('rule and parser tests open none', () => {
    const { database, databaseFree } = classifyTestFiles(['test/secrets/secrets-rules.test.ts', 'test/http/web-url.test.ts', 'test/cli/cli.test.ts']);
    assert.deepEqual(databaseFree, ['test/secrets/secrets-rules.test.ts', 'test/http/web-url.test.ts']);
    assert.deepEqual(database, ['test/cli/cli.test.ts']);
  });

  test('type-only imports do not count: helpers.ts only names the Harness type', () => {
    assert.deepEqual(runtimeImports('test/support/helpers.ts'), []);
    assert.equal(opensDatabase('test/support/helpers.ts'), false);
  });

  test('a database-free pass that loads the test store fails with a line naming the classification', () => {
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('./test/support/store.ts')"], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, [DATABASE_SETTING_NAME]: DATABASE_FREE },
    });
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /classified database-free but opens a database/);
  });
});

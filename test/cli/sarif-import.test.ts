import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '../support/store.ts';

// `bulwark sarif-import`: another tool's SARIF log imported from the command line, as the API imports it.

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = path.join(ROOT, 'test/fixtures/sarif');
const COMMIT = '3f786850e387550fdab836ed7e6dc881de23001b';

let database: TestDatabase;

/** The real CLI in a child process against the test database (the shell's own database settings cleared). */
function bulwark(args: string[], cwd = ROOT) {
  const result = spawnSync(process.execPath, [CLI, ...args, '--json'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: undefined, BULWARK_ENCRYPTION_KEY: undefined, ...database.env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function ok(args: string[], cwd?: string) {
  const { status, stdout, stderr } = bulwark(args, cwd);
  assert.equal(status, 0, `bulwark ${args.join(' ')} failed: ${stderr}`);
  return JSON.parse(stdout.trim());
}

/** A refused command: exit code 2, nothing on stdout, the error it printed. */
function refused(args: string[]): string {
  const { status, stdout, stderr } = bulwark(args);
  assert.equal(status, 2, `bulwark ${args.join(' ')}: ${stderr}`);
  assert.equal(stdout, '');
  return JSON.parse(stderr.trim().split('\n').at(-1)!).error;
}

describe('bulwark sarif-import', () => {
  let repository: { id: string };
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-sarif-cli-'));

  before(async () => {
    database = await createTestDatabase();
    const org = ok(['org', 'create', '--name', 'Sarif CLI']);
    repository = ok(['repo', 'add', '--org', org.slug, '--source', 'github:acme/shop@main']);
  });
  after(async () => {
    fs.rmSync(scratch, { recursive: true, force: true });
    await database.cleanup();
  });

  const findings = () => database.store.db.selectFrom('findings').select(['check_id', 'file_path', 'status']).where('unit_id', '=', repository.id).execute();

  test('imports a log as one scan by its tool; importing it again finds the same findings', async () => {
    const first = ok(['sarif-import', path.join(FIXTURES, 'codeql.sarif'), '--repository', repository.id, '--commit', COMMIT, '--branch', 'main']);
    assert.deepEqual([first.tool, first.category, first.source_repository, first.created, first.updated, first.resolved], ['CodeQL', 'language:python', 'acme/shop', 3, 0, 0]);
    const again = ok(['sarif-import', path.join(FIXTURES, 'codeql.sarif'), '--repository', repository.id, '--commit', COMMIT]);
    assert.deepEqual([again.created, again.updated, again.resolved], [0, 3, 0]);
    // (Other tests import other tools' logs into the same repository, in any order.)
    assert.equal((await findings()).filter((f) => f.check_id.startsWith('codeql/')).length, 3);
  });

  test('absolute file locations are read relative to --root, by default the current folder', async () => {
    const log = path.join(FIXTURES, 'eslint.sarif');
    const elsewhere = ok(['sarif-import', log, '--repository', repository.id, '--commit', COMMIT]);
    assert.deepEqual([elsewhere.created, elsewhere.skipped], [0, 2]);
    assert.match(elsewhere.warnings[0], /an absolute path outside the repository/);
    const rooted = ok(['sarif-import', log, '--repository', repository.id, '--commit', COMMIT, '--root', '/home/ci/work/shop']);
    assert.deepEqual([rooted.created, rooted.skipped], [2, 0]);
    assert.ok((await findings()).some((f) => f.check_id === 'eslint/no-eval' && f.file_path === 'web/src/render.js'));
  });

  test('a file that is not a SARIF 2.1.0 log, a wrong unit or commit are refused and change nothing', async () => {
    const before = await findings();
    const notJson = path.join(scratch, 'broken.sarif');
    fs.writeFileSync(notJson, '{"version": "2.1.0", "runs": [');
    assert.match(refused(['sarif-import', notJson, '--repository', repository.id, '--commit', COMMIT]), /is not JSON/);
    const oldVersion = path.join(scratch, 'old.sarif');
    fs.writeFileSync(oldVersion, JSON.stringify({ version: '1.0.0', runs: [] }));
    assert.match(refused(['sarif-import', oldVersion, '--repository', repository.id, '--commit', COMMIT]), /^version: only SARIF 2\.1\.0 logs are read/);
    assert.match(refused(['sarif-import', path.join(scratch, 'missing.sarif'), '--repository', repository.id, '--commit', COMMIT]), /no such file/);
    assert.match(refused(['sarif-import', path.join(FIXTURES, 'codeql.sarif'), '--repository', 'nope', '--commit', COMMIT]), /no repository or application/);
    assert.match(refused(['sarif-import', path.join(FIXTURES, 'codeql.sarif'), '--repository', repository.id, '--commit', 'main']), /40 hexadecimal digits/);
    assert.match(refused(['sarif-import', path.join(FIXTURES, 'codeql.sarif'), '--commit', COMMIT]), /--repository or --application/);
    assert.deepEqual(await findings(), before);
  });
});

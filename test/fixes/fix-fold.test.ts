import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { alreadyMadeReason, checkAgainstCompleted, diffContainedIn } from '../../src/fixing/fix-conflicts.ts';
import { firstOverlap, fixedByTheSameChange } from '../../src/fixing/fix-overlap.ts';
import type { FixFinding } from '../../src/fixing/types.ts';
import { createHarness, type Harness } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { pollUntil, prsUsed, scanRepository } from '../support/helpers.ts';

// The credential fixer moves every committed credential of a code file in one change, so the findings of
// one file's credentials are one fix: asked for one, the fix folds in the others, a fix asked for another
// later is refused naming it, and a run whose change a completed fix already makes says so when it ends.

const PASSWORDS = ['Zq8vLr2TgN5wKx7Hb3Pm9Yc4', 'Fj6sWd1QeR8tYu3IoP5aSd7G', 'Hk2LmN9bVc4Xz7QwE1rT6yU8'];

const SEEDS_PY = `import psycopg2


db_password = "${PASSWORDS[0]}"
admin_password = "${PASSWORDS[1]}"
backup_password = "${PASSWORDS[2]}"


def connect():
    return psycopg2.connect(host="db", user="app", password=db_password)


def seed_admin(users):
    users.create(name="admin", password=admin_password)


def backup(client):
    client.login("backup", backup_password)
`;

function secret(id: string, filePath: string, startLine: number, metadata: Record<string, unknown> = {}): FixFinding {
  return { id, scanType: 'secrets_scan', checkId: 'secrets.generic-secret-assignment', category: 'secrets', severity: 'medium', title: null, message: '', filePath, startLine, endLine: startLine, cwe: [], metadata };
}

describe('the credentials of one code file are one change', () => {
  test('another credential of a live fix’s code file overlaps it, naming why', () => {
    const live = [{ fixId: 'F1', findings: [secret('a', 'app/seeds.py', 4, { secret_hash: 'h1' })] }];
    const overlap = firstOverlap([secret('b', 'app/seeds.py', 6, { secret_hash: 'h2' })], live);
    assert.equal(overlap?.fixId, 'F1');
    assert.match(overlap!.reason, /fix F1 already moves the committed credentials of app\/seeds\.py/);
    assert.equal(firstOverlap([secret('b', 'app/other.py', 6, { secret_hash: 'h2' })], live), undefined, 'another file stands apart');
    assert.equal(firstOverlap([{ ...secret('b', 'app/seeds.py', 6, { secret_hash: 'h2' }), category: 'security', scanType: 'semgrep_scan' }], live), undefined, 'a finding not about a credential stands apart');
  });

  test('the fold takes a code file’s other credentials, not a config file’s nor a secret only in the history', () => {
    const mine = [secret('a', 'app/seeds.py', 4, { secret_hash: 'h1' }), secret('c', 'config/app.yml', 2, { secret_hash: 'h3' })];
    assert.equal(fixedByTheSameChange(secret('b', 'app/seeds.py', 6, { secret_hash: 'h2' }), mine), true);
    assert.equal(fixedByTheSameChange(secret('d', 'config/app.yml', 5, { secret_hash: 'h4' }), mine), false);
    assert.equal(fixedByTheSameChange(secret('e', 'app/seeds.py', 6, { secret_hash: 'h5', source: 'history' }), mine), false);
  });
});

describe('a run whose change a completed fix already makes', () => {
  const MODULE = ['import os', '', '', 'A = "one"', 'B = "two"', 'C = "three"', '', '', 'def f():', '    return A + B + C', ''];

  async function withDiffs(check: (diffOf: (change: (lines: string[]) => void, extra?: Record<string, string>) => string, base: string, cwd: string) => Promise<void>) {
    const repo = TestRepo.create();
    try {
      const base = repo.commit({ 'app.py': MODULE.join('\n') });
      const diffOf = (change: (lines: string[]) => void, extra: Record<string, string> = {}) => {
        const lines = [...MODULE];
        change(lines);
        fs.writeFileSync(path.join(repo.dir, 'app.py'), lines.join('\n'));
        for (const [file, text] of Object.entries(extra)) fs.writeFileSync(path.join(repo.dir, file), text);
        repo.git('add', '--all');
        const diff = repo.git('diff', '--cached', base);
        repo.git('reset', '--quiet', '--hard', base);
        return diff;
      };
      await check(diffOf, base, repo.dir);
    } finally {
      repo.remove();
    }
  }

  const moveAll = (l: string[]) => {
    l[3] = 'A = os.environ["A"]';
    l[4] = 'B = os.environ["B"]';
    l[5] = 'C = os.environ["C"]';
    l[9] = '    return "".join([A, B, C])';
  };

  test('an identical diff, one adding a file too, and one the other holds are made already; a different change is not', async () => {
    await withDiffs(async (diffOf, base, cwd) => {
      const options = { cwd, timeoutMs: 10_000 };
      const theirs = diffOf(moveAll, { '.env.example': 'A=\nB=\nC=\n' });
      // Made the same way, byte for byte.
      assert.equal(await diffContainedIn({ ours: diffOf(moveAll, { '.env.example': 'A=\nB=\nC=\n' }), theirs }, base, options), true);
      // Part of it only: the completed fix holds it.
      assert.equal(await diffContainedIn({ ours: diffOf((l) => (l[9] = '    return "".join([A, B, C])')), theirs }, base, options), true);
      // A change of its own.
      assert.equal(await diffContainedIn({ ours: diffOf((l) => (l[9] = '    return A + C')), theirs }, base, options), false);
      assert.equal(await diffContainedIn({ ours: diffOf(moveAll, { '.env.example': 'A=\nB=\nC=\nD=\n' }), theirs }, base, options), false);

      const checked = new Set<string>();
      const found = await checkAgainstCompleted(diffOf(moveAll, { '.env.example': 'A=\nB=\nC=\n' }), [{ id: 'F1', diff: theirs }], base, options, checked);
      assert.equal(found.conflict, undefined, 'not a conflict');
      assert.deepEqual(found.madeBy, { fixId: 'F1', files: ['.env.example', 'app.py'] });
      assert.deepEqual([...checked], ['F1']);
      const reason = alreadyMadeReason(found.madeBy!);
      assert.match(reason, /^its change is already made by fix F1, completed earlier from the same commit/);
      assert.doesNotMatch(reason, /conflict/);
    });
  });
});

describe('a file with three hard-coded passwords over HTTP', () => {
  let h: Harness;
  let repo: TestRepo;
  let unitId: string;
  let orgKey: string;
  const base = () => `/api/v1/repositories/${unitId}`;

  before(async () => {
    repo = TestRepo.create();
    repo.commit({ 'app/seeds.py': SEEDS_PY });
    h = await createHarness({ scanning: true });
    const org = await h.org('fold');
    orgKey = org.key;
    unitId = (await h.unit(org, ['github:acme/seeds@main'], 'seeds', [repo.url])).id;
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  const ask = (findingIds: string[]) =>
    h.call('POST', `${base()}/fixes`, { body: { finding_ids: findingIds, title: 'Fix', instructions: 'Fix it.', source_repo: 'acme/seeds' } });

  test('one fix folds all three; a fix asked for another of them is refused naming it', async () => {
    await scanRepository(h, unitId, 'secrets_scan');
    const found = (await h.call('GET', `${base()}/findings?scan_type=secrets_scan&status=open&limit=200`)).json().items;
    const passwords = found.filter((f: any) => f.file_path === 'app/seeds.py').sort((a: any, b: any) => a.start_line - b.start_line);
    assert.equal(passwords.length, 3, JSON.stringify(found.map((f: any) => [f.check_id, f.file_path, f.start_line])));

    const created = await ask([passwords[1].id]);
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual([...created.json().finding_ids].sort(), passwords.map((f: any) => f.id).sort(), 'the file’s other credentials are folded in');
    const fix = await pollUntil(h, `${base()}/fixes/${created.json().id}`, (f) => ['completed', 'failed', 'cancelled'].includes(f.status));
    assert.equal(fix.status, 'completed', fix.error_message ?? '');
    assert.deepEqual(fix.finding_outcomes.map((o: any) => o.fixed), [true, true, true], JSON.stringify(fix.finding_outcomes));
    const diff = (await h.call('GET', `${base()}/fixes/${fix.id}/diff`)).json().diff as string;
    assert.equal((diff.match(/^-\w+_password = /gm) ?? []).length, 3, diff);

    const used = await prsUsed(h, orgKey);
    for (const other of [passwords[0], passwords[2]]) {
      const refused = await ask([other.id]);
      assert.equal(refused.statusCode, 409, refused.body);
      const detail = refused.json().detail;
      assert.equal(detail.error_code, 'FIX_OVERLAPS');
      assert.equal(detail.fix_id, fix.id);
      assert.equal(detail.finding_id, other.id);
    }
    assert.equal(await prsUsed(h, orgKey), used, 'no credit taken');
  });
});

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { diffsConflict } from '../../src/fixing/fix-conflicts.ts';
import { firstOverlap } from '../../src/fixing/fix-overlap.ts';
import type { FixFinding } from '../../src/fixing/types.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { createHarness, testTokenBox, type Harness } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { pollUntil, prsUsed, scanRepository } from '../support/helpers.ts';
import { positiveSample } from '../support/secret-samples.ts';

// The fixes of one repository form one set: a second fix of what a live fix already changes is refused
// naming it (when asked for, by location; when its run completes, by merging the two diffs), and whatever
// set of fixes completes merges into the source commit in any order, as their pull requests would.

const TOKEN = positiveSample(SECRET_RULES.find((r) => r.id === 'github-pat')!, 91);

// Its one top-level import is random's (md5 is imported where it is used), so an import of secrets and
// one of sha256 from hashlib both sort after it, into one gap: the case where two fixes' new imports still
// conflict.
const TOKENS_PY = `import random


def reset_token():
    return "".join(random.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(32))


def checksum(data):
    from hashlib import md5
    return md5(data).hexdigest()


def describe(user):
    name = user.name
    email = user.email
    return name + " <" + email + ">"


def session_key():
    return str(random.randint(10**20, 10**21))
`;

const seed = (name: string) => `import requests\n\nGITHUB_TOKEN = "${TOKEN}"\n\n\ndef seed_${name}():\n    requests.post("https://api.github.com/repos", headers={"Authorization": "token " + GITHUB_TOKEN})\n`;

function finding(id: string, filePath: string, startLine: number | null, metadata: Record<string, unknown> = {}): FixFinding {
  return { id, scanType: 'semgrep_scan', checkId: 'rule', severity: 'high', title: null, message: '', filePath, startLine, endLine: startLine, cwe: [], metadata };
}

describe('claims of findings, before any fixer runs', () => {
  test('the same lines of a file, and only those, overlap', () => {
    const live = [{ fixId: 'F1', findings: [finding('a', 'app.py', 10)] }];
    assert.equal(firstOverlap([finding('b', 'app.py', 10)], live)?.fixId, 'F1');
    assert.match(firstOverlap([finding('b', 'app.py', 10)], live)!.reason, /fix F1 already changes line 10 of app\.py/);
    assert.equal(firstOverlap([finding('b', 'app.py', 11)], live), undefined);
    assert.equal(firstOverlap([finding('b', 'other.py', 10)], live), undefined);
    assert.equal(firstOverlap([{ ...finding('b', 'app.py', 8), endLine: 12 }], live)?.findingId, 'b');
  });

  test('two advisories of one package in one file are one upgrade', () => {
    const advisory = (id: string, name: string, file = 'requirements.txt') =>
      finding(id, file, 3, { package: name, ecosystem: 'PyPI', installed_version: '2.0', fixed_version: '2.1' });
    const live = [{ fixId: 'F1', findings: [advisory('a', 'Flask-Login')] }];
    assert.match(firstOverlap([advisory('b', 'flask_login')], live)!.reason, /fix F1 already upgrades flask_login in requirements\.txt/);
    assert.equal(firstOverlap([advisory('b', 'requests')], live), undefined, 'another package of the file is apart');
    assert.equal(firstOverlap([advisory('b', 'Flask-Login', 'docs/requirements.txt')], live), undefined, 'the same package in another file is apart');
  });

  test('one secret value is moved by one fix, wherever it is', () => {
    const live = [{ fixId: 'F1', findings: [finding('a', 'seeds/one.py', 4, { secret_hash: 'h1' })] }];
    assert.match(firstOverlap([finding('b', 'seeds/two.py', 9, { secret_hash: 'h1' })], live)!.reason, /fix F1 already moves the same secret value/);
    assert.equal(firstOverlap([finding('b', 'seeds/two.py', 9, { secret_hash: 'h2' })], live), undefined);
  });

  test('a finding without a line claims its whole file', () => {
    const live = [{ fixId: 'F1', findings: [finding('a', 'app.py', null)] }];
    assert.equal(firstOverlap([finding('b', 'app.py', 300)], live)?.fixId, 'F1');
  });
});

describe('two diffs of one commit tried together', () => {
  const MODULE = ['import os', 'import sys', '', '', 'def a():', '    return 1', '', '', 'def b():', '    return 2', '', '', 'def c():', '    return 3', ''];

  /** Whether the diffs of changing MODULE by `ours` and by `theirs` conflict, as a completing run asks. */
  async function conflict(ours: (lines: string[]) => void, theirs: (lines: string[]) => void, theirFile = 'app.py'): Promise<boolean> {
    const repo = TestRepo.create();
    try {
      const baseCommit = repo.commit({ 'app.py': MODULE.join('\n'), 'other.py': MODULE.join('\n') });
      const diffOf = (file: string, change: (lines: string[]) => void) => {
        const lines = [...MODULE];
        change(lines);
        fs.writeFileSync(path.join(repo.dir, file), lines.join('\n'));
        const diff = repo.git('diff');
        repo.git('checkout', '--quiet', '--', '.');
        return diff;
      };
      const theirDiff = diffOf(theirFile, theirs);
      const ourDiff = diffOf('app.py', ours);
      return await diffsConflict({ ours: ourDiff, theirs: theirDiff }, baseCommit, { cwd: repo.dir, timeoutMs: 10_000 });
    } finally {
      repo.remove();
    }
  }

  test('different imports added at the same place conflict, in either order', async () => {
    assert.equal(await conflict((l) => l.splice(2, 0, 'import shlex'), (l) => l.splice(2, 0, 'import html')), true);
  });

  test('changes far apart in one file, or in different files, stand apart', async () => {
    assert.equal(await conflict((l) => (l[5] = '    return 10'), (l) => (l[13] = '    return 30')), false);
    assert.equal(await conflict((l) => l.splice(2, 0, 'import shlex'), (l) => l.splice(2, 0, 'import html'), 'other.py'), false);
  });

  test('changes of adjacent lines conflict; changes a few lines apart merge, as pull requests do', async () => {
    assert.equal(await conflict((l) => (l[5] = '    return 10'), (l) => (l[4] = 'def a(x=None):')), true);
    assert.equal(await conflict((l) => (l[5] = '    return 10'), (l) => (l[8] = 'def b(x=None):')), false);
  });

  test('the same import added at the same place merges', async () => {
    assert.equal(await conflict((l) => { l.splice(2, 0, 'import shlex'); l[5] = '    return 10'; }, (l) => { l.splice(2, 0, 'import shlex'); l[13] = '    return 30'; }), false);
  });
});

describe('fixes of one repository over HTTP', () => {
  let h: Harness;
  let repo: TestRepo;
  let unitId: string;
  let baseCommit: string;
  let orgKey: string;
  const base = () => `/api/v1/repositories/${unitId}`;

  before(async () => {
    repo = TestRepo.create();
    baseCommit = repo.commit({ 'app/tokens.py': TOKENS_PY, 'seeds/one.py': seed('one'), 'seeds/two.py': seed('two') });
    h = await createHarness({ scanning: true });
    const org = await h.org('overlap');
    orgKey = org.key;
    unitId = (await h.unit(org, ['github:acme/app@main'], 'app', [repo.url])).id;
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  async function findings(scanType: string): Promise<any[]> {
    await scanRepository(h, unitId, scanType);
    return (await h.call('GET', `${base()}/findings?scan_type=${scanType}&status=open&limit=200`)).json().items;
  }

  const ask = (findingIds: string[]) =>
    h.call('POST', `${base()}/fixes`, { body: { finding_ids: findingIds, title: 'Fix', instructions: 'Fix it.', source_repo: 'acme/app' } });

  async function run(findingIds: string[]) {
    const created = await ask(findingIds);
    assert.equal(created.statusCode, 201, created.body);
    return pollUntil(h, `${base()}/fixes/${created.json().id}`, (f) => ['completed', 'failed', 'cancelled'].includes(f.status));
  }

  // One scenario, in order (the runner shuffles tests): each step's fixes stay live for the next.
  test('a second fix of what a live fix changes is refused; the completed fixes merge together in any order', async () => {
    // One secret value in two files: the second fix is refused naming the first, nothing stored or charged.
    {
    const secrets = (await findings('secrets_scan')).filter((f) => f.file_path.startsWith('seeds/'));
    assert.equal(secrets.length, 2, JSON.stringify(secrets.map((f) => f.file_path)));
    const first = await run([secrets[0].id]);
    assert.equal(first.status, 'completed', first.error_message ?? '');
    assert.deepEqual(first.finding_ids, [secrets[0].id, secrets[1].id], 'the other place of the value is folded into the fix');
    const moved = (await h.call('GET', `${base()}/fixes/${first.id}/diff`)).json().diff;
    for (const file of ['seeds/one.py', 'seeds/two.py']) assert.match(moved, new RegExp(`^\\+\\+\\+ b/${file}$`, 'm'));
    const used = await prsUsed(h, orgKey);
    const fixesBefore = (await h.call('GET', `${base()}/fixes`)).json().total;
    for (const id of [secrets[1].id, secrets[0].id]) {
      const refused = await ask([id]);
      assert.equal(refused.statusCode, 409, refused.body);
      const detail = refused.json().detail;
      assert.equal(detail.error_code, 'FIX_OVERLAPS');
      assert.equal(detail.fix_id, first.id);
      assert.equal(detail.finding_id, id);
      assert.match(detail.detail, new RegExp(`fix ${first.id} already`));
    }
    assert.equal(await prsUsed(h, orgKey), used, 'no credit taken');
    assert.equal((await h.call('GET', `${base()}/fixes`)).json().total, fixesBefore, 'no fix stored');
    }
    // Two fixes adding different imports into the same gap of a file's imports: the second to complete fails
    // naming the first. A third adding the same import as the first, and changing lines of its own, merges with it.
    {
      const sast = (await findings('semgrep_scan')).filter((f) => f.file_path === 'app/tokens.py').sort((a, b) => a.start_line - b.start_line);
      const random = sast.filter((f) => f.check_id === 'python.lang.crypto.insecure-random');
      const hash = sast.find((f) => f.check_id === 'python.lang.crypto.weak-hash');
      assert.equal(random.length, 2, JSON.stringify(sast.map((f) => [f.check_id, f.start_line])));
      assert.ok(hash);
      const first = await run([random[0].id]);
      assert.equal(first.status, 'completed', first.error_message ?? '');
      const second = await run([hash.id]);
      assert.equal(second.status, 'failed');
      assert.match(second.error_message, new RegExp(`conflicts with fix ${first.id}, completed earlier from the same commit: both change app/tokens\\.py`));
      assert.equal((await h.call('GET', `${base()}/fixes/${second.id}/diff`)).json().diff, null, 'a refused fix keeps no diff');
      assert.deepEqual(second.finding_outcomes.map((o: any) => o.fixed), [false]);
      const row = await h.database.store.db.selectFrom('fixes').select('credit_refunded_at').where('id', '=', second.id).executeTakeFirstOrThrow();
      assert.ok(row.credit_refunded_at, 'the refused fix gives its credit back');
      const same = await run([random[1].id]);
      assert.equal(same.status, 'completed', `the same import and a change lines away merge: ${same.error_message}`);
    }
    // Every set of the completed fixes merges into the source commit in any order.
    {
    const fixes = (await h.call('GET', `${base()}/fixes?limit=200`)).json().items.filter((f: any) => f.status === 'completed');
    assert.ok(fixes.length >= 3, `${fixes.length} completed`);
    const diffs = new Map<string, string>();
    for (const fix of fixes) {
      const row = await h.database.store.db.selectFrom('fixes').select(['diff_ciphertext', 'source_base_commit_sha']).where('id', '=', fix.id).executeTakeFirstOrThrow();
      assert.equal(row.source_base_commit_sha, baseCommit);
      diffs.set(fix.id, testTokenBox.open(row.diff_ciphertext!));
    }
    for (const order of permutations([...diffs.keys()])) {
      const failed = mergeInOrder(repo, baseCommit, order.map((id) => diffs.get(id)!));
      assert.equal(failed, undefined, `order ${order.join(', ')}: ${failed}`);
    }
    }
  });
});

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

/**
 * Applies the diffs one after another to `commit` as their pull requests merge (`git apply --3way`, in an
 * index of its own); the error of the first that does not merge.
 */
function mergeInOrder(repo: TestRepo, commit: string, diffs: string[]): string | undefined {
  const index = path.join(repo.dir, '..', `${path.basename(repo.dir)}.merge-index`);
  const env = { ...process.env, GIT_INDEX_FILE: index };
  try {
    execFileSync('git', ['read-tree', commit], { cwd: repo.dir, env, stdio: 'pipe' });
    for (const diff of diffs) {
      try {
        execFileSync('git', ['apply', '--cached', '--3way', '-'], { cwd: repo.dir, env, input: diff, stdio: 'pipe' });
      } catch (error) {
        return String((error as { stderr?: Buffer }).stderr ?? error);
      }
    }
    return undefined;
  } finally {
    fs.rmSync(index, { force: true });
  }
}

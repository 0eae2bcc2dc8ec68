// The secrets engine's history: renames (with and without edits) are followed, and every finding says
// where the secret is: only in the tree, only in history (with the commit that introduced it), or both.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { RawFinding } from '../../src/scanning/engine.ts';
import { addedTextInHistory } from '../../src/scanning/secrets/history.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { SecretsEngine } from '../../src/scanning/secrets/secrets-engine.ts';
import { TestRepo } from '../support/git-repo.ts';
import { positiveSample } from '../support/secret-samples.ts';

const KEY = Buffer.alloc(32, 5);
const sample = (id: string, seed: number) => positiveSample(SECRET_RULES.find((r) => r.id === id)!, seed);

/** A config file long enough that git sees a rename with a few edited lines as a rename. */
const config = (extra: string[] = []) =>
  ['# service settings', 'LOG_LEVEL=info', 'PORT=8080', 'WORKERS=4', 'REGION=eu-west-1', 'FEATURE_FLAGS=a,b,c', 'TIMEOUT_MS=3000', ...extra, ''].join('\n');

async function scan(repo: TestRepo, historyDepth = 20): Promise<RawFinding[]> {
  const commit = repo.git('rev-parse', 'HEAD').trim();
  return new SecretsEngine({ historyDepth, pool: null }).scan({ dir: repo.dir, gitDir: path.join(repo.dir, '.git'), commit, fingerprintKey: KEY });
}

const where = (f: RawFinding) => `${f.filePath}:${f.startLine} ${f.metadata.location} ${f.metadata.commit ?? '-'}`;

describe('secrets in history', () => {
  const repos: TestRepo[] = [];
  const newRepo = () => {
    const repo = TestRepo.create();
    repos.push(repo);
    return repo;
  };
  after(() => repos.forEach((r) => r.remove()));

  test('a secret added by a commit that renames a file with edits is found, under the new name, at that commit', async () => {
    const cases: { from: string; to: string }[] = [
      { from: 'config/app.env', to: 'config/prod.env' },
      { from: 'app.env', to: 'deploy/settings/app.env' },
      { from: 'settings/dev.env', to: 'settings/dev settings.env' },
      { from: 'a/b/c.env', to: 'c.env' },
      { from: 'svc.env', to: 'svc/.env' },
    ];
    for (const [i, { from, to }] of cases.entries()) {
      const repo = newRepo();
      const secret = sample('stripe-secret-key', 100 + i);
      repo.commit({ [from]: config() }, 'add config');
      fs.mkdirSync(path.dirname(path.join(repo.dir, to)), { recursive: true });
      repo.git('mv', from, to);
      const renamed = repo.commit({ [to]: config([`STRIPE_KEY=${secret}`]) }, 'rename and add the key');
      assert.match(repo.git('show', '--stat', '-M', '--format=', renamed), /=>/, 'git sees a rename');
      repo.commit({ [to]: null }, 'remove config');
      const findings = await scan(repo);
      assert.deepEqual(findings.map(where), [`${to}:8 history ${renamed}`], `${from} -> ${to}`);
      assert.equal(findings[0].commitSha, renamed);
      assert.equal(findings[0].metadata.source, 'history');
    }
  });

  test('the history reader yields the lines a rename with edits added, under the new path', async () => {
    const repo = newRepo();
    repo.commit({ 'old.env': config() });
    repo.git('mv', 'old.env', 'new.env');
    const renamed = repo.commit({ 'new.env': config(['EXTRA=1']) });
    const added = [];
    for await (const item of addedTextInHistory(path.join(repo.dir, '.git'), renamed, 1)) added.push(item);
    assert.deepEqual(added.map((a) => [a.commit, a.path, a.text, a.lines]), [[renamed, 'new.env', 'EXTRA=1', [8]]]);
  });

  test('a file to which one commit adds more than the size limit is passed over in that commit, like a large file of the tree', async () => {
    const repo = newRepo();
    const dump = Array.from({ length: 200 }, (_, i) => `row ${i}: ${'x'.repeat(40)}`).join('\n');
    const commit = repo.commit({ 'data/dump.sql': `${dump}\n`, 'small.env': config(['EXTRA=1']) });
    const added = [];
    for await (const item of addedTextInHistory(path.join(repo.dir, '.git'), commit, 1, undefined, 4096)) added.push(item.path);
    assert.deepEqual(added.sort(), ['small.env']);
    const unbounded = [];
    for await (const item of addedTextInHistory(path.join(repo.dir, '.git'), commit, 1)) unbounded.push(item.path);
    assert.deepEqual(unbounded.sort(), ['data/dump.sql', 'small.env']);
  });

  test('location: tree only without history, both when history holds it too, history only once deleted', async () => {
    const repo = newRepo();
    const kept = sample('github-pat', 201);
    const moved = sample('gitlab-pat', 202);
    const deleted = sample('npm-token', 203);
    const first = repo.commit({
      'config/keep.env': config([`GITHUB_TOKEN=${kept}`]),
      'config/old-name.env': config([`GITLAB_TOKEN=${moved}`]),
      'config/gone.env': config([`NPM_TOKEN=${deleted}`]),
    });
    repo.git('mv', 'config/old-name.env', 'config/new-name.env');
    repo.commit({ 'config/gone.env': null }, 'rename one, delete one');

    const treeOnly = await scan(repo, 0);
    assert.deepEqual(treeOnly.map(where), ['config/keep.env:8 tree -', 'config/new-name.env:8 tree -']);

    const withHistory = await scan(repo);
    assert.deepEqual(withHistory.map(where), [
      `config/gone.env:8 history ${first}`,
      `config/keep.env:8 both ${first}`,
      `config/new-name.env:8 both ${first}`,
    ]);
    const [gone, keep, renamed] = withHistory;
    assert.equal(gone.commitSha, first);
    assert.equal(keep.commitSha, null, 'a tree finding keeps commitSha null; the commit is in metadata');
    assert.equal(renamed.metadata.source, 'tree');
    assert.deepEqual(
      withHistory.filter((f) => f.metadata.location === 'both').map((f) => f.fingerprint),
      treeOnly.map((f) => f.fingerprint),
      'the same findings as a tree-only scan, with where they came from added',
    );
  });

  test('a secret introduced beyond the history depth is reported from the tree alone', async () => {
    const repo = newRepo();
    const token = sample('github-pat', 301);
    repo.commit({ 'app.env': config([`GITHUB_TOKEN=${token}`]) });
    repo.commit({ 'README.md': '# app\n' });
    repo.commit({ 'README.md': '# app\n\nmore\n' });
    assert.deepEqual((await scan(repo, 2)).map(where), ['app.env:8 tree -']);
    assert.deepEqual((await scan(repo, 3)).map((f) => f.metadata.location), ['both']);
  });

  test('a history naming a path no checkout can hold (`../x`) is read, not a failure', async () => {
    const repo = newRepo();
    repo.commit({ 'README.md': '# app\n' });
    const token = sample('github-pat', 61);
    // Made with git's plumbing, as a hostile repository can be: a tree git itself would never check out.
    const plumb = (args: string[], input: string) => execFileSync('git', args, { cwd: repo.dir, input, encoding: 'utf8' }).trim();
    const blob = plumb(['hash-object', '-w', '--stdin'], `GITHUB_TOKEN=${token}\n`);
    const mktree = (entries: string) => plumb(['mktree'], entries);
    const inner = mktree(`100644 blob ${blob}\tescaped.env\n`);
    const head = repo.git('rev-parse', 'HEAD').trim();
    const readme = repo.git('rev-parse', 'HEAD:README.md').trim();
    const crafted = repo.git('commit-tree', mktree(`040000 tree ${inner}\t..\n100644 blob ${readme}\tREADME.md\n`), '-p', head, '-m', 'crafted').trim();
    repo.git('update-ref', 'HEAD', crafted);
    repo.commit({ 'README.md': '# app\n\nlater\n' });
    const found = await scan(repo);
    assert.deepEqual(found.map((f) => [f.checkId, f.filePath, f.metadata.location]), [['secrets.github-pat', '../escaped.env', 'history']]);
  });
});

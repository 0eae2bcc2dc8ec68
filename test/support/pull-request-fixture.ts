// What the pull-request tests share: a bare remote with a base commit, a database holding a unit and
// findings, a completed fix (in memory, as the lifecycle hands it over) and an opener whose code-host
// API roots point at a stand-in server.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CodeHostName, CodeHostSettings } from '../../src/code-hosts/index.ts';
import { findingsInOrder, type FixView, type PullRequestOpener } from '../../src/core/fixes.ts';
import { createOrganization } from '../../src/core/organizations.ts';
import { testCloneUrlPolicy } from './api.ts';
import { addUnit, type Unit } from '../../src/core/units.ts';
import { TokenBox } from '../../src/crypto/token-box.ts';
import { newId, nowIso } from '../../src/ids.ts';
import { CheckoutCache } from '../../src/scm/checkout-cache.ts';
import { createPullRequestOpener, type PullRequestOpenerDeps } from '../../src/scm/pull-requests/opener.ts';
import type { FindingRow, FixRow } from '../../src/store/schema.ts';
import { findingRow } from './finding-rows.ts';
import { TestRepo } from './git-repo.ts';
import { createTestDatabase, type TestDatabase } from './store.ts';

export const BASE_CONFIG = ['module.exports = {', '  region: "eu-west-1",', '  key: "AKIAIOSFODNN7EXAMPLE",', '};', ''].join('\n');
export const FIXED_CONFIG = ['module.exports = {', '  region: "eu-west-1",', '  key: process.env.AWS_ACCESS_KEY_ID,', '};', ''].join('\n');
export const FIX_DIFF = [
  'diff --git a/src/config.js b/src/config.js',
  '--- a/src/config.js',
  '+++ b/src/config.js',
  '@@ -1,4 +1,4 @@',
  ' module.exports = {',
  '   region: "eu-west-1",',
  '-  key: "AKIAIOSFODNN7EXAMPLE",',
  '+  key: process.env.AWS_ACCESS_KEY_ID,',
  ' };',
  '',
].join('\n');

/** A bare repository (the code host's copy) whose `main` holds a README and `src/config.js`. */
export class BareRemote {
  readonly dir: string;
  readonly base: string;
  private readonly work: TestRepo;

  constructor() {
    this.work = TestRepo.create('main');
    this.work.commit({ 'README.md': '# api\n' }, 'initial');
    this.base = this.work.commit({ 'src/config.js': BASE_CONFIG }, 'add config');
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-remote-')) + '/api.git';
    execFileSync('git', ['clone', '--quiet', '--bare', this.work.dir, this.dir]);
  }

  git(...args: string[]): string {
    return execFileSync('git', ['--git-dir', this.dir, ...args], { encoding: 'utf8' }).trim();
  }

  /** The commit id a branch points at, or null. */
  branch(name: string): string | null {
    try {
      return this.git('rev-parse', '--verify', '--quiet', `refs/heads/${name}`);
    } catch {
      return null;
    }
  }

  /** Commits `files` on top of `parent` (the base by default) and puts them on `branch` of the remote. */
  pushBranch(branch: string, files: Record<string, string>, parent = this.base): string {
    this.work.git('checkout', '--quiet', '-B', `tmp-${branch.replace(/\//g, '-')}`, parent);
    const commit = this.work.commit(files, `someone else's ${branch}`);
    this.work.git('push', '--quiet', this.dir, `${commit}:refs/heads/${branch}`);
    this.work.git('checkout', '--quiet', 'main');
    return commit;
  }

  /** Advances `main` on the remote so that the fix's base commit is no longer its head. */
  advanceMain(files: Record<string, string>): string {
    this.work.git('checkout', '--quiet', 'main');
    const commit = this.work.commit(files, 'later work');
    this.work.git('push', '--quiet', this.dir, 'main:refs/heads/main');
    return commit;
  }

  remove(): void {
    this.work.remove();
    fs.rmSync(path.dirname(this.dir), { recursive: true, force: true });
  }
}

export interface PullRequestFixture {
  database: TestDatabase;
  remote: BareRemote;
  unit: Unit;
  findings: FindingRow[];
  tokenBox: TokenBox;
  checkouts: CheckoutCache;
  cacheRoot: string;
  /** An opener on the fixture's database; `deps` replaces any of its settings (a deadline, clients). */
  opener(codeHosts: Partial<CodeHostSettings>, deps?: Partial<PullRequestOpenerDeps>): PullRequestOpener;
  /** A completed fix of the unit's source, as `openPullRequests` hands it to the opener. */
  fixView(overrides?: Partial<FixRow>): FixView;
  close(): Promise<void>;
}

let counter = 0;

export async function createPullRequestFixture(options: { provider: CodeHostName; fullName: string; token: string | null }): Promise<PullRequestFixture> {
  const database = await createTestDatabase();
  const db = database.store.db;
  const tokenBox = new TokenBox(Buffer.alloc(32, 9));
  const remote = new BareRemote();
  const org = await createOrganization(db, { name: 'Acme', slug: `acme-pr-${++counter}` });
  const unit = await addUnit(db, tokenBox, {
    orgId: org.id,
    name: 'api',
    sources: [
      { provider: options.provider, fullName: options.fullName, branch: 'main', cloneUrl: remote.dir, token: options.token ?? undefined },
    ],
  }, testCloneUrlPolicy);
  const now = nowIso();
  const finding = (overrides: Partial<FindingRow>): FindingRow => findingRow(unit, { commit_sha: remote.base, ...overrides });
  const findings = [
    finding({ severity: 'medium', check_id: 'hardcoded-region', cwe: '["CWE-547"]', start_line: 2, end_line: 2 }),
    finding({ start_line: 3, end_line: 3 }),
  ];
  await db.insertInto('findings').values(findings).execute();
  const cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-pr-cache-'));
  const checkouts = new CheckoutCache({ root: cacheRoot, allowLocal: true, localRoot: os.tmpdir(), timeoutMs: 30_000 });

  return {
    database,
    remote,
    unit,
    findings,
    tokenBox,
    checkouts,
    cacheRoot,
    opener: (codeHosts, deps = {}) =>
      createPullRequestOpener({
        findings: (findingIds) => findingsInOrder(db, findingIds),
        tokenBox,
        checkouts,
        codeHosts: { github: 'http://127.0.0.1:9', gitlab: 'http://127.0.0.1:9', azure_devops: 'http://127.0.0.1:9', ...codeHosts },
        apiTimeoutMs: 10_000,
        gitTimeoutMs: 30_000,
        ...deps,
      }),
    fixView(overrides = {}) {
      const fix = {
        id: newId(),
        org_id: org.id,
        unit_id: unit.id,
        title: 'Read the AWS key from the environment',
        instructions: 'Drop the literal key.',
        status: 'completed',
        source_repo: options.fullName,
        source_repo_provider: options.provider,
        source_scan_branch: 'main',
        source_base_commit_sha: remote.base,
        error_message: null,
        diff: FIX_DIFF,
        agent_steps_completed: 3,
        agent_input_tokens: 0,
        agent_output_tokens: 0,
        verification: 'The secrets engine no longer reports the findings in the patched files.',
        runs: 1,
        latest_activity_at: now,
        created_by_key_id: null,
        created_at: now,
        started_at: now,
        completed_at: now,
        updated_at: now,
        ...overrides,
      } satisfies Partial<FixRow> as FixRow;
      return { fix, findingIds: [findings[0].id, findings[1].id], pullRequests: [] };
    },
    async close() {
      remote.remove();
      fs.rmSync(cacheRoot, { recursive: true, force: true });
      await database.cleanup();
    },
  };
}

/** The commits on `branch` of the remote that are not on the base, newest first. */
export function commitsOnTop(remote: BareRemote, branch: string): string[] {
  const text = remote.git('rev-list', `${remote.base}..refs/heads/${branch}`);
  return text ? text.split('\n') : [];
}

// What the pull-request tests share: a bare remote with a base commit, a database holding a unit and
// findings, a completed fix (in memory, as the lifecycle hands it over) and an opener whose code-host
// API roots point at a stand-in server.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { CodeHostName, CodeHostSettings } from '../../src/code-hosts/index.ts';
import { findingsInOrder, type FixView, type PullRequestOpener } from '../../src/core/fixes.ts';
import { createOrganization } from '../../src/core/organizations.ts';
import { testCloneUrlPolicy } from './api.ts';
import {
  AZURE_GIT_AREA_ID,
  AZURE_LOCATION_AREA_ID,
  AZURE_PULL_REQUESTS_LOCATION_ID,
  type CannedResponse,
  type RecordedRequest,
} from './code-host-standins.ts';
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

/** A pull request as a code host holds it, in words every host shares; the stand-in says it in the host's JSON. */
export interface HostedPullRequest {
  state: 'open' | 'closed' | 'merged';
  title: string;
  body: string | null;
  headSha: string;
  /** When it was merged or closed. */
  closedAt?: string;
  mergeCommitSha?: string;
  /** Its commits' messages, oldest first. */
  commits: string[];
  /** Fields laid over the host's JSON for it, for words only one host has (GitLab's `locked`, `squash_commit_sha`). */
  raw?: Record<string, unknown>;
}

export interface PullRequestStateStandIn {
  url: string;
  requests: RecordedRequest[];
  /** Answers every call past Azure DevOps' discovery with this instead (null goes back to answering as the host). */
  respondWith(response: CannedResponse | null): void;
  close(): Promise<void>;
}

const AZURE_PULL_REQUEST_COMMITS_LOCATION_ID = '52823034-34a8-4576-922c-8d8b77e9e4c4';

/** A stable made-up commit id for a message. */
function commitId(message: string): string {
  return createHash('sha1').update(message).digest('hex');
}

/**
 * A code host's REST API on 127.0.0.1 answering what its SDK asks to read one pull request and its commits:
 * GitHub's `GET /repos/{owner}/{repo}/pulls/{n}` and `…/commits`, GitLab's `GET /api/v4/projects/{path}/merge_requests/{iid}`
 * and `…/commits`, Azure DevOps' discovery then `GET {org}/{project}/_apis/git/repositories/{repo}/pullRequests/{id}`
 * and `…/commits`. `pullRequests` is read on every request, so a test may change a pull request between reads.
 */
export async function startPullRequestStateStandIn(options: {
  provider: CodeHostName;
  token: string;
  fullName: string;
  pullRequests: Record<number, HostedPullRequest>;
}): Promise<PullRequestStateStandIn> {
  const requests: RecordedRequest[] = [];
  let canned: CannedResponse | null = null;
  const answer = (request: RecordedRequest, url: URL): CannedResponse => {
    const route = { github: gitHubRoute, gitlab: gitLabRoute, azure_devops: azureRoute }[options.provider];
    const routed = route(request, url, options);
    if (canned && !routed.discovery) return canned;
    return routed.answer;
  };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body: chunks.length ? Buffer.concat(chunks).toString('utf8') : undefined,
    };
    requests.push(recorded);
    const { status, body } = answer(recorded, new URL(recorded.path, `http://${req.headers.host ?? '127.0.0.1'}`));
    const payload = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
    res.end(payload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respondWith(response) {
      canned = response;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type StateRoute = (
  request: RecordedRequest,
  url: URL,
  options: { token: string; fullName: string; pullRequests: Record<number, HostedPullRequest> },
) => { answer: CannedResponse; discovery?: boolean };

const gitHubRoute: StateRoute = (request, url, { token, fullName, pullRequests }) => {
  const auth = request.headers.authorization ?? '';
  if (auth !== `token ${token}` && auth !== `Bearer ${token}`) {
    return { answer: { status: 401, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' } } };
  }
  const notFound = { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/pulls/pulls#get-a-pull-request', status: '404' } };
  const match = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)(\/commits)?$/.exec(url.pathname);
  if (request.method !== 'GET' || !match || `${decodeURIComponent(match[1])}/${decodeURIComponent(match[2])}` !== fullName) return { answer: notFound };
  const number = Number(match[3]);
  const pull = pullRequests[number];
  if (!pull) return { answer: notFound };
  if (match[4]) {
    const perPage = Number(url.searchParams.get('per_page') ?? 30);
    return {
      answer: {
        status: 200,
        body: pull.commits.slice(0, perPage).map((message) => ({
          sha: commitId(message),
          commit: {
            message,
            author: { name: 'Bulwark', email: 'bulwark@localhost', date: '2024-05-01T10:02:00Z' },
            committer: { name: 'Bulwark', email: 'bulwark@localhost', date: '2024-05-01T10:02:00Z' },
          },
          html_url: `https://github.example/${fullName}/commit/${commitId(message)}`,
          parents: [],
        })),
      },
    };
  }
  const merged = pull.state === 'merged';
  return {
    answer: {
      status: 200,
      body: {
        id: 1_000_000 + number,
        number,
        state: pull.state === 'open' ? 'open' : 'closed',
        title: pull.title,
        body: pull.body,
        html_url: `https://github.example/${fullName}/pull/${number}`,
        head: { ref: 'bulwark/fix', sha: pull.headSha },
        base: { ref: 'main', sha: '0'.repeat(40) },
        draft: false,
        merged,
        merged_at: merged ? (pull.closedAt ?? null) : null,
        closed_at: pull.state === 'open' ? null : (pull.closedAt ?? null),
        // Before a merge GitHub names its test merge commit here.
        merge_commit_sha: pull.mergeCommitSha ?? commitId(`test merge of ${number}`),
        mergeable_state: 'clean',
        created_at: '2024-05-01T10:03:00Z',
        updated_at: pull.closedAt ?? '2024-05-01T10:03:00Z',
        ...pull.raw,
      },
    },
  };
};

const gitLabRoute: StateRoute = (request, url, { token, fullName, pullRequests }) => {
  if (request.headers['private-token'] !== token) return { answer: { status: 401, body: { message: '401 Unauthorized' } } };
  // The project's path arrives encoded (`acme%2Fplatform%2Fweb`): match on the raw path.
  const match = /^\/api\/v4\/projects\/([^/]+)\/merge_requests\/(\d+)(\/commits)?$/.exec(request.path.split('?')[0]);
  if (request.method !== 'GET' || !match) return { answer: { status: 404, body: { error: '404 Not Found' } } };
  if (decodeURIComponent(match[1]) !== fullName) return { answer: { status: 404, body: { message: '404 Project Not Found' } } };
  const iid = Number(match[2]);
  const pull = pullRequests[iid];
  if (!pull) return { answer: { status: 404, body: { message: '404 Not found' } } };
  if (match[3]) {
    const perPage = Number(url.searchParams.get('per_page') ?? 20);
    // GitLab lists a merge request's commits newest first.
    return {
      answer: {
        status: 200,
        body: [...pull.commits].reverse().slice(0, perPage).map((message) => ({
          id: commitId(message),
          short_id: commitId(message).slice(0, 8),
          title: message.split('\n')[0],
          message,
          author_name: 'Bulwark',
          author_email: 'bulwark@localhost',
          authored_date: '2024-05-01T10:02:00.000Z',
          committer_name: 'Bulwark',
          committer_email: 'bulwark@localhost',
          committed_date: '2024-05-01T10:02:00.000Z',
          created_at: '2024-05-01T10:02:00.000Z',
          web_url: `https://gitlab.example/${fullName}/-/commit/${commitId(message)}`,
        })),
      },
    };
  }
  const merged = pull.state === 'merged';
  return {
    answer: {
      status: 200,
      body: {
        id: 9000 + iid,
        iid,
        project_id: 77,
        title: pull.title,
        description: pull.body,
        state: pull.state === 'open' ? 'opened' : pull.state,
        source_branch: 'bulwark/fix',
        target_branch: 'main',
        sha: pull.headSha,
        merge_commit_sha: merged ? (pull.mergeCommitSha ?? null) : null,
        squash_commit_sha: null,
        squash: false,
        merged_at: merged ? (pull.closedAt ?? null) : null,
        closed_at: pull.state === 'closed' ? (pull.closedAt ?? null) : null,
        merge_status: 'can_be_merged',
        detailed_merge_status: merged ? 'not_open' : 'mergeable',
        web_url: `https://gitlab.example/${fullName}/-/merge_requests/${iid}`,
        created_at: '2024-05-01T10:03:00.123Z',
        updated_at: pull.closedAt ?? '2024-05-01T10:03:00.123Z',
        ...pull.raw,
      },
    },
  };
};

const azureRoute: StateRoute = (request, url, { token, fullName, pullRequests }) => {
  const auth = request.headers.authorization ?? '';
  const password = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':').slice(1).join(':') : null;
  if (password !== token) {
    return { answer: { status: 401, body: { message: "TF400813: The user '' is not authorized to access this resource.", typeKey: 'UnauthorizedRequestException' } } };
  }
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const [organization] = parts;
  const orgUrl = `${url.origin}/${encodeURIComponent(organization)}/`;
  const location = (id: string, resourceName: string, routeTemplate: string, resourceVersion: number) => ({
    id,
    area: 'git',
    resourceName,
    routeTemplate,
    resourceVersion,
    minVersion: '3.0',
    maxVersion: '7.2',
    releasedVersion: '7.1',
  });
  if (request.method === 'OPTIONS' && parts.length === 3 && parts[1] === '_apis' && parts[2] === 'Location') {
    const resourceAreas = {
      id: AZURE_LOCATION_AREA_ID,
      area: 'Location',
      resourceName: 'ResourceAreas',
      routeTemplate: '_apis/{resource}/{areaId}',
      resourceVersion: 1,
      minVersion: '3.2',
      maxVersion: '7.2',
      releasedVersion: '0.0',
    };
    return { discovery: true, answer: { status: 200, body: { count: 1, value: [resourceAreas] } } };
  }
  if (request.method === 'GET' && parts.length === 3 && parts[1] === '_apis' && parts[2] === 'ResourceAreas') {
    return { discovery: true, answer: { status: 200, body: { count: 1, value: [{ id: AZURE_GIT_AREA_ID, name: 'git', locationUrl: orgUrl }] } } };
  }
  if (request.method === 'OPTIONS' && parts.length === 3 && parts[1] === '_apis' && parts[2] === 'git') {
    const value = [
      location(AZURE_PULL_REQUESTS_LOCATION_ID, 'pullRequests', '{project}/_apis/{area}/repositories/{repositoryId}/{resource}/{pullRequestId}', 2),
      location(AZURE_PULL_REQUEST_COMMITS_LOCATION_ID, 'commits', '{project}/_apis/{area}/repositories/{repositoryId}/pullRequests/{pullRequestId}/{resource}', 1),
    ];
    return { discovery: true, answer: { status: 200, body: { count: value.length, value } } };
  }
  const match = /^\/([^/]+)\/([^/]+)\/_apis\/git\/repositories\/([^/]+)\/pullRequests\/(\d+)(\/commits)?$/.exec(url.pathname);
  const [, , project, repository] = (match ?? []).map((part) => (part === undefined ? part : decodeURIComponent(part)));
  if (request.method !== 'GET' || !match || `${organization}/${project}/${repository}` !== fullName) {
    return { answer: { status: 404, body: { message: `TF401019: The Git repository with name or identifier ${repository ?? ''} does not exist.` } } };
  }
  const id = Number(match[4]);
  const pull = pullRequests[id];
  if (!pull) return { answer: { status: 404, body: { message: `TF401180: The requested pull request was not found.`, typeKey: 'GitPullRequestNotFoundException' } } };
  const repoId = '6c3ba6cc-0000-4000-8000-000000000001';
  const commitRef = (commitIdValue: string) => ({ commitId: commitIdValue, url: `${orgUrl}_apis/git/repositories/${repoId}/commits/${commitIdValue}` });
  if (match[5]) {
    // Azure DevOps lists a pull request's commits newest first.
    const value = [...pull.commits].reverse().map((message) => ({
      ...commitRef(commitId(message)),
      author: { name: 'Bulwark', email: 'bulwark@localhost', date: '2024-05-01T10:02:00Z' },
      committer: { name: 'Bulwark', email: 'bulwark@localhost', date: '2024-05-01T10:02:00Z' },
      comment: message,
    }));
    return { answer: { status: 200, body: { count: value.length, value } } };
  }
  return {
    answer: {
      status: 200,
      body: {
        repository: { id: repoId, name: repository, url: `${orgUrl}_apis/git/repositories/${repoId}`, project: { id: 'p-1', name: project } },
        pullRequestId: id,
        codeReviewId: id,
        status: { open: 'active', closed: 'abandoned', merged: 'completed' }[pull.state],
        creationDate: '2024-05-01T10:03:00.5Z',
        ...(pull.state === 'open' ? {} : { closedDate: pull.closedAt }),
        title: pull.title,
        ...(pull.body === null ? {} : { description: pull.body }),
        sourceRefName: 'refs/heads/bulwark/fix',
        targetRefName: 'refs/heads/main',
        mergeStatus: 'succeeded',
        isDraft: false,
        lastMergeSourceCommit: commitRef(pull.headSha),
        lastMergeTargetCommit: commitRef('0'.repeat(40)),
        ...(pull.mergeCommitSha ? { lastMergeCommit: commitRef(pull.mergeCommitSha) } : {}),
        url: `${orgUrl}${encodeURIComponent(project)}/_apis/git/repositories/${repoId}/pullRequests/${id}`,
        supportsIterations: true,
        ...pull.raw,
      },
    },
  };
};

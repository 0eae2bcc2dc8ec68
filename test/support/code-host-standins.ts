// Local HTTP servers on 127.0.0.1 that answer the few API calls the official GitHub, GitLab and Azure
// DevOps SDKs make to open a pull request, the way each host does, and record every request the SDK sent.
import { execFileSync } from 'node:child_process';
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** The path and query exactly as sent (percent-encoding kept). */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON payload, or the raw text when it is not JSON; undefined without a body. */
  body: unknown;
}

export interface CannedResponse {
  status: number;
  body: unknown;
}

export interface StandIn {
  /** The API root to configure the host with (its entry in `CodeHostSettings`). */
  url: string;
  requests: RecordedRequest[];
  /** The requests that would create a pull request (the SDK's payload is in their `body`). */
  creations(): RecordedRequest[];
  /** Answers the next creation requests with this instead (null goes back to creating). */
  respondWith(response: CannedResponse | null): void;
  close(): Promise<void>;
}

export interface StandInOptions {
  /** The access token the host accepts; anything else gets the host's 401. */
  token: string;
  /** Bare repositories by full name: the head branch must exist there, as on the real host. */
  repos: Record<string, string>;
}

type Handler = (request: RecordedRequest, url: URL) => CannedResponse | 'pass';

function branchExists(gitDir: string | undefined, branch: string): boolean {
  if (!gitDir) return false;
  try {
    execFileSync('git', ['--git-dir', gitDir, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (!chunks.length) return undefined;
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function startStandIn(isCreation: (r: RecordedRequest) => boolean, route: (standIn: StandIn) => Handler): Promise<StandIn> {
  const requests: RecordedRequest[] = [];
  let canned: CannedResponse | null = null;
  let handler: Handler = () => 'pass';
  const server = http.createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: await readBody(req) };
    requests.push(recorded);
    let answer = handler(recorded, new URL(recorded.path, `http://${req.headers.host ?? '127.0.0.1'}`));
    if (answer !== 'pass' && answer.status < 300 && canned && isCreation(recorded)) answer = canned;
    if (answer === 'pass') answer = { status: 404, body: { message: 'Not Found' } };
    const payload = answer.body === undefined ? '' : JSON.stringify(answer.body);
    res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
    res.end(payload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const standIn: StandIn = {
    url: `http://127.0.0.1:${port}`,
    requests,
    creations: () => requests.filter(isCreation),
    respondWith(response) {
      canned = response;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  handler = route(standIn);
  return standIn;
}

/** GitHub's REST API: `POST /repos/{owner}/{repo}/pulls` with `Authorization: token …`. */
export function startGitHubStandIn(options: StandInOptions): Promise<StandIn> {
  let next = 17;
  const isCreation = (r: RecordedRequest) => r.method === 'POST' && /^\/repos\/[^/]+\/[^/]+\/pulls$/.test(r.path);
  return startStandIn(isCreation, () => (request, url) => {
    const auth = request.headers.authorization ?? '';
    if (auth !== `token ${options.token}` && auth !== `Bearer ${options.token}`) {
      return { status: 401, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' } };
    }
    const match = /^\/repos\/([^/]+)\/([^/]+)\/pulls$/.exec(url.pathname);
    if (!match || request.method !== 'POST') return 'pass';
    const fullName = `${decodeURIComponent(match[1])}/${decodeURIComponent(match[2])}`;
    const payload = request.body as { head: string; base: string; title: string; body?: string };
    const gitDir = options.repos[fullName];
    if (!gitDir) return { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request', status: '404' } };
    if (!branchExists(gitDir, payload.head) || !branchExists(gitDir, payload.base)) {
      return {
        status: 422,
        body: {
          message: 'Validation Failed',
          errors: [{ resource: 'PullRequest', field: branchExists(gitDir, payload.head) ? 'base' : 'head', code: 'invalid' }],
          documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
          status: '422',
        },
      };
    }
    const number = next++;
    return {
      status: 201,
      body: {
        id: 1_000_000 + number,
        number,
        state: 'open',
        title: payload.title,
        body: payload.body ?? null,
        html_url: `https://github.example/${fullName}/pull/${number}`,
        url: `${url.origin}/repos/${fullName}/pulls/${number}`,
        head: { ref: payload.head },
        base: { ref: payload.base },
        draft: false,
        merged: false,
        mergeable: null,
        mergeable_state: 'unknown',
        created_at: '2024-05-01T10:03:00Z',
        updated_at: '2024-05-01T10:03:00Z',
      },
    };
  });
}

/** GitLab's REST API: `POST /api/v4/projects/{url-encoded path}/merge_requests` with `PRIVATE-TOKEN`. */
export function startGitLabStandIn(options: StandInOptions): Promise<StandIn> {
  let next = 5;
  const pattern = /^\/api\/v4\/projects\/([^/]+)\/merge_requests$/;
  const isCreation = (r: RecordedRequest) => r.method === 'POST' && pattern.test(r.path.split('?')[0]);
  return startStandIn(isCreation, () => (request, url) => {
    if (request.headers['private-token'] !== options.token) return { status: 401, body: { message: '401 Unauthorized' } };
    const match = pattern.exec(url.pathname);
    if (!match || request.method !== 'POST') return 'pass';
    const fullName = decodeURIComponent(match[1]);
    const gitDir = options.repos[fullName];
    if (!gitDir) return { status: 404, body: { message: '404 Project Not Found' } };
    const payload = request.body as { source_branch: string; target_branch: string; title: string; description?: string };
    if (!branchExists(gitDir, payload.source_branch)) return { status: 422, body: { message: ['Source branch does not exist'] } };
    const iid = next++;
    return {
      status: 201,
      body: {
        id: 9000 + iid,
        iid,
        project_id: 77,
        title: payload.title,
        description: payload.description ?? null,
        state: 'opened',
        source_branch: payload.source_branch,
        target_branch: payload.target_branch,
        merge_status: 'checking',
        detailed_merge_status: 'checking',
        web_url: `https://gitlab.example/${fullName}/-/merge_requests/${iid}`,
        created_at: '2024-05-01T10:03:00.123Z',
      },
    };
  });
}

export const AZURE_LOCATION_AREA_ID = 'e81700f7-3be2-46de-8624-2eb35882fcaa';
export const AZURE_GIT_AREA_ID = '4e080c62-fa21-4fbc-8fef-2a10a2b38049';
export const AZURE_PULL_REQUESTS_LOCATION_ID = '9946fd70-0d40-406e-b686-b4744cbbcc37';

/**
 * Azure DevOps Services: the SDK first discovers where things are (OPTIONS `{org}/_apis/Location`, then
 * GET `{org}/_apis/ResourceAreas` for the git area's URL, then OPTIONS `{org}/_apis/git` for the route
 * template and versions of pull requests), then POSTs `{org}/{project}/_apis/git/repositories/{repo}/pullRequests`.
 * Authentication is Basic with the PAT as password.
 */
export function startAzureDevOpsStandIn(options: StandInOptions): Promise<StandIn> {
  let next = 42;
  const creation = /^\/([^/]+)\/([^/]+)\/_apis\/git\/repositories\/([^/]+)\/pullRequests$/;
  const isCreation = (r: RecordedRequest) => r.method === 'POST' && creation.test(r.path.split('?')[0]);
  return startStandIn(isCreation, () => (request, url) => {
    const auth = request.headers.authorization ?? '';
    const password = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':').slice(1).join(':') : null;
    if (password !== options.token) {
      return { status: 401, body: { message: "TF400813: The user '' is not authorized to access this resource.", typeKey: 'UnauthorizedRequestException' } };
    }
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const [organization] = parts;
    const orgUrl = `${url.origin}/${encodeURIComponent(organization)}/`;
    if (request.method === 'OPTIONS' && parts.length === 3 && parts[1] === '_apis' && parts[2] === 'Location') {
      return {
        status: 200,
        body: {
          count: 1,
          value: [
            {
              id: AZURE_LOCATION_AREA_ID,
              area: 'Location',
              resourceName: 'ResourceAreas',
              routeTemplate: '_apis/{resource}/{areaId}',
              resourceVersion: 1,
              minVersion: '3.2',
              maxVersion: '7.2',
              releasedVersion: '0.0',
            },
          ],
        },
      };
    }
    if (request.method === 'GET' && parts.length === 3 && parts[1] === '_apis' && parts[2] === 'ResourceAreas') {
      return { status: 200, body: { count: 1, value: [{ id: AZURE_GIT_AREA_ID, name: 'git', locationUrl: orgUrl }] } };
    }
    if (request.method === 'OPTIONS' && parts.length === 3 && parts[1] === '_apis' && parts[2] === 'git') {
      return {
        status: 200,
        body: {
          count: 1,
          value: [
            {
              id: AZURE_PULL_REQUESTS_LOCATION_ID,
              area: 'git',
              resourceName: 'pullRequests',
              routeTemplate: '{project}/_apis/{area}/repositories/{repositoryId}/{resource}/{pullRequestId}',
              resourceVersion: 2,
              minVersion: '3.0',
              maxVersion: '7.2',
              releasedVersion: '7.1',
            },
          ],
        },
      };
    }
    const match = creation.exec(url.pathname);
    if (!match || request.method !== 'POST') return 'pass';
    const [, , project, repository] = match.map(decodeURIComponent);
    const fullName = `${organization}/${project}/${repository}`;
    const gitDir = options.repos[fullName];
    // The SDK reads a 404 as "no result" rather than an error, as it does against the real service.
    if (!gitDir) return { status: 404, body: { message: `TF401019: The Git repository with name or identifier ${repository} does not exist.` } };
    const payload = request.body as { sourceRefName: string; targetRefName: string; title: string; description?: string };
    if (!branchExists(gitDir, payload.sourceRefName.replace(/^refs\/heads\//, ''))) {
      return { status: 400, body: { message: `TF401398: The pull request cannot be activated because the source and/or the target branch no longer exists.` } };
    }
    const id = next++;
    const repoId = '6c3ba6cc-0000-4000-8000-000000000001';
    return {
      status: 201,
      body: {
        repository: { id: repoId, name: repository, url: `${orgUrl}_apis/git/repositories/${repoId}`, project: { id: 'p-1', name: project } },
        pullRequestId: id,
        codeReviewId: id,
        status: 'active',
        creationDate: '2024-05-01T10:03:00.5Z',
        title: payload.title,
        description: payload.description,
        sourceRefName: payload.sourceRefName,
        targetRefName: payload.targetRefName,
        mergeStatus: 'queued',
        isDraft: false,
        url: `${orgUrl}${encodeURIComponent(project)}/_apis/git/repositories/${repoId}/pullRequests/${id}`,
        supportsIterations: true,
      },
    };
  });
}

/** A loopback URL nothing listens on (a port just released), for "the host cannot be reached". */
export async function unreachableUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export interface SilentHost {
  url: string;
  /** Requests received, none of them ever answered. */
  received(): number;
  /** Requests whose client gave up and closed the connection. */
  abandoned(): number;
  close(): Promise<void>;
}

/** A code host that accepts connections and reads requests but never answers them. */
export async function startSilentHost(): Promise<SilentHost> {
  let received = 0;
  let abandoned = 0;
  const server = http.createServer((req) => {
    received++;
    req.socket.on('close', () => abandoned++);
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => received,
    abandoned: () => abandoned,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What a stand-in holds of the reports published on its pull requests, in the host's words. */
export interface PublishedState {
  /** GitHub's check runs by id: the fields last sent, and every annotation sent (updates append them). */
  checkRuns: Map<number, { headSha: string; fields: Record<string, unknown>; annotations: Record<string, unknown>[] }>;
  /** Commit statuses (GitHub, GitLab) or pull request statuses (Azure DevOps) as sent, in order. */
  statuses: { sha?: string; pullRequest?: number; state: string; fields: Record<string, unknown> }[];
  /** GitHub's pull request comments and GitLab's merge request notes by id. */
  comments: Map<number, { pullRequest: number; body: string }>;
  /** Azure DevOps' pull request threads by id. */
  threads: Map<number, { pullRequest: number; status: string; comments: Map<number, string> }>;
}

export interface ScanReportStandIn {
  url: string;
  requests: RecordedRequest[];
  published: PublishedState;
  /** Answers GitHub's Checks API as it does a personal access token: 403. */
  refuseChecks(refuse: boolean): void;
  /** Answers every call past Azure DevOps' discovery with this instead (null goes back to answering as the host). */
  respondWith(response: CannedResponse | null): void;
  close(): Promise<void>;
}

/**
 * A code host's REST API on 127.0.0.1 answering what its SDK sends to publish a scan's report on a pull request:
 * GitHub's `POST /repos/{o}/{r}/check-runs`, `PATCH …/check-runs/{id}`, `GET …/check-runs/{id}/annotations`,
 * `POST …/statuses/{sha}`, `POST …/issues/{n}/comments`, `PATCH …/issues/comments/{id}`; GitLab's
 * `POST /api/v4/projects/{path}/statuses/{sha}`, `POST …/merge_requests/{iid}/notes`, `PUT …/notes/{id}`;
 * Azure DevOps' discovery, then `POST {org}/{project}/_apis/git/repositories/{repo}/pullRequests/{id}/statuses`,
 * `POST …/threads`, `PATCH …/threads/{id}`, `PATCH …/threads/{id}/comments/{commentId}`. Only `pullRequests` exist.
 */
export async function startScanReportStandIn(options: {
  provider: 'github' | 'gitlab' | 'azure_devops';
  token: string;
  fullName: string;
  pullRequests: number[];
}): Promise<ScanReportStandIn> {
  const requests: RecordedRequest[] = [];
  const published: PublishedState = { checkRuns: new Map(), statuses: [], comments: new Map(), threads: new Map() };
  const flags = { refuseChecks: false, canned: null as CannedResponse | null };
  const route = { github: gitHubReportRoute, gitlab: gitLabReportRoute, azure_devops: azureReportRoute }[options.provider];
  const server = http.createServer(async (req, res) => {
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: await readBody(req) };
    requests.push(recorded);
    const routed = route(recorded, new URL(recorded.path, `http://${req.headers.host ?? '127.0.0.1'}`), { ...options, published, refuseChecks: flags.refuseChecks });
    const answer = flags.canned && !routed.discovery ? flags.canned : routed.answer;
    const payload = JSON.stringify(answer.body);
    res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
    res.end(payload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    published,
    refuseChecks(refuse) {
      flags.refuseChecks = refuse;
    },
    respondWith(response) {
      flags.canned = response;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type ReportRoute = (
  request: RecordedRequest,
  url: URL,
  options: { token: string; fullName: string; pullRequests: number[]; published: PublishedState; refuseChecks: boolean },
) => { answer: CannedResponse; discovery?: boolean };

let nextReportId = 500;

const gitHubReportRoute: ReportRoute = (request, url, { token, fullName, pullRequests, published, refuseChecks }) => {
  const auth = request.headers.authorization ?? '';
  if (auth !== `token ${token}` && auth !== `Bearer ${token}`) {
    return { answer: { status: 401, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' } } };
  }
  const notFound = { answer: { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' } } };
  const match = /^\/repos\/([^/]+)\/([^/]+)(\/.*)$/.exec(url.pathname);
  if (!match || `${decodeURIComponent(match[1])}/${decodeURIComponent(match[2])}` !== fullName) return notFound;
  const rest = match[3];
  const body = (request.body ?? {}) as Record<string, unknown>;
  const ok = (status: number, payload: unknown) => ({ answer: { status, body: payload } });
  if (rest.startsWith('/check-runs')) {
    if (refuseChecks) {
      return ok(403, { message: 'Resource not accessible by personal access token', documentation_url: 'https://docs.github.com/rest/checks/runs#create-a-check-run', status: '403' });
    }
    const output = (body.output ?? {}) as { title?: string; summary?: string; annotations?: Record<string, unknown>[] };
    if ((output.annotations?.length ?? 0) > 50) {
      return ok(422, { message: 'Validation Failed', errors: ['Only 50 annotations are allowed per request'], status: '422' });
    }
    const runJson = (id: number) => {
      const run = published.checkRuns.get(id)!;
      const out = (run.fields.output ?? {}) as Record<string, unknown>;
      return {
        id,
        head_sha: run.headSha,
        name: run.fields.name,
        status: run.fields.status,
        conclusion: run.fields.conclusion,
        details_url: run.fields.details_url ?? null,
        html_url: `https://github.example/${fullName}/runs/${id}`,
        output: { title: out.title ?? null, summary: out.summary ?? null, text: null, annotations_count: run.annotations.length, annotations_url: `${url.origin}/repos/${fullName}/check-runs/${id}/annotations` },
      };
    };
    if (request.method === 'POST' && rest === '/check-runs') {
      const id = nextReportId++;
      published.checkRuns.set(id, { headSha: String(body.head_sha), fields: body, annotations: [...(output.annotations ?? [])] });
      return ok(201, runJson(id));
    }
    const runMatch = /^\/check-runs\/(\d+)(\/annotations)?$/.exec(rest);
    const run = runMatch ? published.checkRuns.get(Number(runMatch[1])) : undefined;
    if (!runMatch || !run) return notFound;
    if (request.method === 'GET' && runMatch[2]) {
      const perPage = Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      return ok(
        200,
        run.annotations.slice((page - 1) * perPage, page * perPage).map((a) => ({
          ...a,
          start_column: null,
          end_column: null,
          raw_details: null,
          blob_href: `https://github.example/${fullName}/blob/${run.headSha}/${String(a.path)}`,
        })),
      );
    }
    if (request.method === 'PATCH' && !runMatch[2]) {
      run.fields = { ...run.fields, ...body };
      run.annotations.push(...(output.annotations ?? []));
      return ok(200, runJson(Number(runMatch[1])));
    }
    return notFound;
  }
  const statusMatch = /^\/statuses\/([0-9a-f]{40})$/.exec(rest);
  if (request.method === 'POST' && statusMatch) {
    published.statuses.push({ sha: statusMatch[1], state: String(body.state), fields: body });
    return ok(201, { id: nextReportId++, state: body.state, description: body.description ?? null, target_url: body.target_url ?? null, context: body.context ?? 'default' });
  }
  const commentJson = (id: number) => ({ id, body: published.comments.get(id)!.body, html_url: `https://github.example/${fullName}/pull/${published.comments.get(id)!.pullRequest}#issuecomment-${id}` });
  const createMatch = /^\/issues\/(\d+)\/comments$/.exec(rest);
  if (request.method === 'POST' && createMatch) {
    if (!pullRequests.includes(Number(createMatch[1]))) return notFound;
    const id = nextReportId++;
    published.comments.set(id, { pullRequest: Number(createMatch[1]), body: String(body.body) });
    return ok(201, commentJson(id));
  }
  const editMatch = /^\/issues\/comments\/(\d+)$/.exec(rest);
  if (request.method === 'PATCH' && editMatch) {
    const comment = published.comments.get(Number(editMatch[1]));
    if (!comment) return notFound;
    comment.body = String(body.body);
    return ok(200, commentJson(Number(editMatch[1])));
  }
  return notFound;
};

const gitLabReportRoute: ReportRoute = (request, _url, { token, fullName, pullRequests, published }) => {
  if (request.headers['private-token'] !== token) return { answer: { status: 401, body: { message: '401 Unauthorized' } } };
  // The project's path arrives encoded (`acme%2Fplatform%2Fweb`): match on the raw path.
  const match = /^\/api\/v4\/projects\/([^/]+)(\/.*)$/.exec(request.path.split('?')[0]);
  if (!match || decodeURIComponent(match[1]) !== fullName) return { answer: { status: 404, body: { message: '404 Project Not Found' } } };
  const rest = match[2];
  const body = (request.body ?? {}) as Record<string, unknown>;
  const ok = (status: number, payload: unknown) => ({ answer: { status, body: payload } });
  const statusMatch = /^\/statuses\/([0-9a-f]{40})$/.exec(rest);
  if (request.method === 'POST' && statusMatch) {
    if (!['pending', 'running', 'success', 'failed', 'canceled'].includes(String(body.state))) return ok(400, { message: 'state is invalid' });
    published.statuses.push({ sha: statusMatch[1], state: String(body.state), fields: body });
    return ok(201, {
      id: nextReportId++,
      sha: statusMatch[1],
      status: body.state,
      name: body.name ?? 'default',
      target_url: body.target_url ?? null,
      description: body.description ?? null,
      created_at: '2024-05-01T10:03:00.123Z',
    });
  }
  const noteJson = (id: number) => ({
    id,
    body: published.comments.get(id)!.body,
    noteable_type: 'MergeRequest',
    noteable_iid: published.comments.get(id)!.pullRequest,
    system: false,
    created_at: '2024-05-01T10:03:00.123Z',
    updated_at: '2024-05-01T10:03:00.123Z',
  });
  const notesMatch = /^\/merge_requests\/(\d+)\/notes(?:\/(\d+))?$/.exec(rest);
  if (!notesMatch || !pullRequests.includes(Number(notesMatch[1]))) return ok(404, { message: '404 Not found' });
  if (request.method === 'POST' && !notesMatch[2]) {
    const id = nextReportId++;
    published.comments.set(id, { pullRequest: Number(notesMatch[1]), body: String(body.body) });
    return ok(201, noteJson(id));
  }
  if (request.method === 'PUT' && notesMatch[2]) {
    const note = published.comments.get(Number(notesMatch[2]));
    if (!note || note.pullRequest !== Number(notesMatch[1])) return ok(404, { message: '404 Note Not Found' });
    note.body = String(body.body);
    return ok(200, noteJson(Number(notesMatch[2])));
  }
  return ok(404, { error: '404 Not Found' });
};

const AZURE_STATUS_STATES: Record<string, string> = { 0: 'notSet', 1: 'pending', 2: 'succeeded', 3: 'failed', 4: 'error', 5: 'notApplicable' };
const AZURE_THREAD_STATUSES: Record<string, string> = { 0: 'unknown', 1: 'active', 2: 'fixed', 3: 'wontFix', 4: 'closed', 5: 'byDesign', 6: 'pending' };

const azureReportRoute: ReportRoute = (request, url, { token, fullName, pullRequests, published }) => {
  const auth = request.headers.authorization ?? '';
  const password = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':').slice(1).join(':') : null;
  if (password !== token) {
    return { answer: { status: 401, body: { message: "TF400813: The user '' is not authorized to access this resource.", typeKey: 'UnauthorizedRequestException' } } };
  }
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const [organization] = parts;
  const orgUrl = `${url.origin}/${encodeURIComponent(organization)}/`;
  const ok = (status: number, payload: unknown) => ({ answer: { status, body: payload } });
  if (request.method === 'OPTIONS' && parts.length === 3 && parts[1] === '_apis' && parts[2] === 'Location') {
    const resourceAreas = { id: AZURE_LOCATION_AREA_ID, area: 'Location', resourceName: 'ResourceAreas', routeTemplate: '_apis/{resource}/{areaId}', resourceVersion: 1, minVersion: '3.2', maxVersion: '7.2', releasedVersion: '0.0' };
    return { discovery: true, answer: { status: 200, body: { count: 1, value: [resourceAreas] } } };
  }
  if (request.method === 'GET' && parts.length === 3 && parts[1] === '_apis' && parts[2] === 'ResourceAreas') {
    return { discovery: true, answer: { status: 200, body: { count: 1, value: [{ id: AZURE_GIT_AREA_ID, name: 'git', locationUrl: orgUrl }] } } };
  }
  if (request.method === 'OPTIONS' && parts.length === 3 && parts[1] === '_apis' && parts[2] === 'git') {
    const prefix = '{project}/_apis/{area}/repositories/{repositoryId}/pullRequests/{pullRequestId}';
    const value = [
      ['b5f6bb4f-8d1e-4d79-8d11-4c9172c99c35', 'pullRequestStatuses', `${prefix}/statuses/{statusId}`],
      ['ab6e2e5d-a0b7-4153-b64a-a4efe0d49449', 'pullRequestThreads', `${prefix}/threads/{threadId}`],
      ['965a3ec7-5ed8-455a-bdcb-835a5ea7fe7b', 'pullRequestThreadComments', `${prefix}/threads/{threadId}/comments/{commentId}`],
    ].map(([id, resourceName, routeTemplate]) => ({ id, area: 'git', resourceName, routeTemplate, resourceVersion: 1, minVersion: '3.0', maxVersion: '7.2', releasedVersion: '7.1' }));
    return { discovery: true, answer: { status: 200, body: { count: value.length, value } } };
  }
  const match = /^\/([^/]+)\/([^/]+)\/_apis\/git\/repositories\/([^/]+)\/pullRequests\/(\d+)\/(statuses|threads)(?:\/(\d+))?(?:\/comments\/(\d+))?$/.exec(url.pathname);
  const [, , project, repository] = (match ?? []).map((part) => (part === undefined ? part : decodeURIComponent(part)));
  if (!match || `${organization}/${project}/${repository}` !== fullName) {
    return ok(404, { message: `TF401019: The Git repository with name or identifier ${repository ?? ''} does not exist.` });
  }
  const pullRequest = Number(match[4]);
  if (!pullRequests.includes(pullRequest)) return ok(404, { message: 'TF401180: The requested pull request was not found.', typeKey: 'GitPullRequestNotFoundException' });
  const body = (request.body ?? {}) as Record<string, unknown>;
  const name = (names: Record<string, string>, value: unknown) => (typeof value === 'number' ? names[value] : String(value));
  if (match[5] === 'statuses' && request.method === 'POST' && !match[6]) {
    const state = name(AZURE_STATUS_STATES, body.state);
    published.statuses.push({ pullRequest, state, fields: body });
    return ok(200, { id: published.statuses.length, state, description: body.description, context: body.context, targetUrl: body.targetUrl, creationDate: '2024-05-01T10:03:00.5Z' });
  }
  const threadJson = (id: number) => {
    const thread = published.threads.get(id)!;
    return {
      id,
      status: thread.status,
      publishedDate: '2024-05-01T10:03:00.5Z',
      comments: [...thread.comments].map(([commentId, content]) => ({ id: commentId, parentCommentId: 0, content, commentType: 'text' })),
    };
  };
  if (match[5] === 'threads' && request.method === 'POST' && !match[6]) {
    const id = nextReportId++;
    const comments = (body.comments ?? []) as { content?: string }[];
    published.threads.set(id, { pullRequest, status: name(AZURE_THREAD_STATUSES, body.status), comments: new Map(comments.map((c, i) => [i + 1, String(c.content)])) });
    return ok(200, threadJson(id));
  }
  const thread = match[6] ? published.threads.get(Number(match[6])) : undefined;
  if (!thread || thread.pullRequest !== pullRequest) return ok(404, { message: 'TF401181: The requested thread was not found.' });
  if (request.method === 'PATCH' && match[7]) {
    const commentId = Number(match[7]);
    if (!thread.comments.has(commentId)) return ok(404, { message: 'TF401182: The requested comment was not found.' });
    thread.comments.set(commentId, String(body.content));
    return ok(200, { id: commentId, parentCommentId: 0, content: body.content, commentType: 'text' });
  }
  if (request.method === 'PATCH' && !match[7]) {
    if (body.status !== undefined) thread.status = name(AZURE_THREAD_STATUSES, body.status);
    return ok(200, threadJson(Number(match[6])));
  }
  return ok(404, { message: 'Not Found' });
};

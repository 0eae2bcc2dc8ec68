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

import os from 'node:os';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createApiKey } from '../../src/core/api-keys.ts';
import { createOrganization } from '../../src/core/organizations.ts';
import { SCOPES, type Scope } from '../../src/core/scopes.ts';
import { addUnit, type Unit } from '../../src/core/units.ts';
import type { PullRequestOpener } from '../../src/core/fixes.ts';
import { parseSourceSpec } from '../../src/core/source-repos.ts';
import { TokenBox } from '../../src/crypto/token-box.ts';
import type { CloneUrlPolicy } from '../../src/scm/clone-url.ts';
import { loadSettings } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import { openServices, type Services } from '../../src/services.ts';
import type { FindingRow } from '../../src/store/schema.ts';
import { findingRow } from './finding-rows.ts';
import { createTestDatabase, type TestDatabase } from './store.ts';

const testTokenKey = Buffer.alloc(32, 7);

/** Test repositories live in temporary folders: local clone URLs are allowed there. */
export const testCloneUrlPolicy: CloneUrlPolicy = { allowLocal: true, localRoot: os.tmpdir(), allowPrivateHosts: false };
export const testTokenBox = new TokenBox(testTokenKey);

export interface TestOrg {
  id: string;
  slug: string;
  /** A key holding every scope. */
  key: string;
  keyId: string;
}

export interface HarnessOptions {
  /** Run scan jobs in-process, against local git repositories. */
  scanning?: boolean;
  env?: Record<string, string>;
  /** Tell the API an LLM agent is configured (refinements need one). */
  agentConfigured?: boolean;
  /** Opens the pull requests of fixes (say, against code-host stand-ins). */
  pullRequests?: PullRequestOpener;
  /** Where the app writes its log lines (at `info` level); no logging without one. */
  logStream?: NodeJS.WritableStream;
  /** Receives the scan and fix workers' log lines. */
  log?: (message: string, fields?: object) => void;
}

export interface Harness {
  database: TestDatabase;
  services?: Services;
  app: FastifyInstance;
  call(method: string, url: string, options?: { key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<LightMyRequestResponse>;
  org(name: string): Promise<TestOrg>;
  key(org: TestOrg, scopes: Scope[], name?: string): Promise<{ key: string; id: string }>;
  unit(org: TestOrg, sources: string[], name?: string, cloneUrls?: string[]): Promise<Unit>;
  finding(unit: Unit, overrides?: Partial<FindingRow>): Promise<FindingRow>;
  close(): Promise<void>;
}

let counter = 0;

/** The real app on a real database, driven in-process through Fastify's inject. */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const database = await createTestDatabase();
  let services: Services | undefined;
  if (options.scanning) {
    const settings = loadSettings({
      ...database.env,
      BULWARK_ALLOW_LOCAL_REPOS: 'true',
      BULWARK_LOCAL_REPOS_ROOT: os.tmpdir(),
      BULWARK_ENCRYPTION_KEY: testTokenKey.toString('hex'),
      ...options.env,
    });
    services = await openServices(settings, database.store, options.log);
    await services.startWorkers();
  }
  const app = await buildApp({
    store: database.store,
    dispatchBatch: services?.dispatchBatch,
    dispatchFix: services?.dispatchFix,
    dispatchDelivery: services?.dispatchDelivery,
    pullRequests: options.pullRequests ?? services?.pullRequests,
    agentConfigured: options.agentConfigured ?? services?.agentConfigured,
    hasFixer: services?.hasFixer,
    logger: options.logStream ? { level: 'info', stream: options.logStream } : false,
    sourceBranchExists: services?.sourceBranchExists,
    registration: { tokenBox: testTokenBox, cloneUrlPolicy: testCloneUrlPolicy },
  });
  const db = database.store.db;
  let defaultKey: string | null = null;

  const harness: Harness = {
    database,
    app,
    services,
    call(method, url, options = {}) {
      const key = options.key === undefined ? defaultKey : options.key;
      const headers: Record<string, string> = { ...(options.headers ?? {}) };
      if (key) headers.authorization = `Bearer ${key}`;
      const payload = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      if (payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
      return app.inject({ method: method as 'GET', url, headers, payload });
    },
    async org(name) {
      const org = await createOrganization(db, { name, slug: `${name}-${++counter}` });
      const { key, summary } = await createApiKey(db, { orgId: org.id, name: 'all scopes', scopes: [...SCOPES] });
      defaultKey ??= key;
      return { id: org.id, slug: org.slug, key, keyId: summary.id };
    },
    async key(org, scopes, name = 'limited') {
      const { key, summary } = await createApiKey(db, { orgId: org.id, name, scopes });
      return { key, id: summary.id };
    },
    async unit(org, sources, name, cloneUrls = []) {
      return addUnit(db, testTokenBox, {
        orgId: org.id,
        name: name ?? sources[0],
        sources: sources.map((s, i) => ({ ...parseSourceSpec(s), cloneUrl: cloneUrls[i] })),
      }, testCloneUrlPolicy);
    },
    async finding(unit, overrides = {}) {
      const row = findingRow(unit, overrides);
      await db.insertInto('findings').values(row).execute();
      return row;
    },
    async close() {
      await app.close();
      await services?.close();
      await database.cleanup();
    },
  };
  return harness;
}

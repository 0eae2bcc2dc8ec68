import type { FastifyInstance } from 'fastify';
import { cloneUrlPolicyOf, type Settings } from './config.ts';
import { createApiKey } from './core/api-keys.ts';
import { countOrganizations, createOrganization } from './core/organizations.ts';
import { SCOPES } from './core/scopes.ts';
import { buildApp } from './http/app.ts';
import { OidcSignIn } from './identity/oidc.ts';
import { openStore, type Store } from './store/database.ts';
import { migrateToLatest } from './store/migrate.ts';
import { openServices } from './services.ts';

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  url: string;
  close(): Promise<void>;
}

/** On an empty database, a default organization and an admin key, so a newcomer can call the API at once. */
async function bootstrap(store: Store): Promise<{ org: string; key: string } | undefined> {
  if ((await countOrganizations(store.db)) > 0) return undefined;
  const org = await createOrganization(store.db, { name: 'Default', slug: 'default' });
  const { key } = await createApiKey(store.db, { orgId: org.id, name: 'admin (created at first start)', scopes: [...SCOPES] });
  return { org: org.slug, key };
}

export interface StartOptions {
  print?: (line: string) => void;
  /** Run scan jobs in this process too (the default); false makes an API-only node. */
  worker?: boolean;
  /** Where log lines go; stdout by default. */
  logStream?: NodeJS.WritableStream;
}

export async function startServer(settings: Settings, options: StartOptions = {}): Promise<RunningServer> {
  const print = options.print ?? console.log;
  const store = openStore(settings);
  await migrateToLatest(store);
  const created = await bootstrap(store);
  // Job lines go through the server's logger (level, redaction, destination), bound once it exists.
  let logJob: (message: string, fields?: Record<string, unknown>) => void = () => {};
  const services = await openServices(settings, store, (message, fields) => logJob(message, fields));
  const app = await buildApp({
    store,
    dispatchBatch: services.dispatchBatch,
    dispatchFix: services.dispatchFix,
    dispatchDelivery: services.dispatchDelivery,
    pullRequests: services.pullRequests,
    agentConfigured: services.agentConfigured,
    hasFixer: services.hasFixer,
    sourceBranchExists: services.sourceBranchExists,
    bodyLimit: settings.bodyLimit,
    pageCacheBytes: settings.pageCacheBytes,
    metrics: services.metrics,
    metricsToken: settings.metricsToken,
    publicUrl: settings.publicUrl,
    trustProxy: settings.trustProxy,
    registration: { tokenBox: services.tokenBox, cloneUrlPolicy: cloneUrlPolicyOf(settings) },
    oidc: settings.oidc ? new OidcSignIn(settings.oidc) : null,
    limits: settings,
    logger: {
      level: settings.logLevel,
      redact: ['req.headers.authorization', 'req.headers.cookie'],
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
  });
  logJob = (message, fields) => app.log.info(fields ?? {}, message);
  await app.listen({ host: settings.host, port: settings.port });
  const worker = options.worker ?? true;
  if (worker) await services.startWorkers();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  print(`Bulwark listening on ${url} (database: ${store.location}; jobs: ${services.queue.name}, ${worker ? 'worker in this process' : 'no worker in this process'})`);
  print(`API docs: ${url}/docs — OpenAPI: ${url}/openapi.json`);
  if (created) {
    print(`Created organization "${created.org}" with an admin API key. It is shown only this once; store it now:`);
    print(`  ${created.key}`);
    print(`Try: curl -H "Authorization: Bearer ${created.key}" ${url}/api/v1/me`);
    print(`To sign in to the console at ${url}/, create its first owner:`);
    print(`  BULWARK_PASSWORD='…' npm run bulwark -- user create --email you@example.com --password-env BULWARK_PASSWORD --org ${created.org} --role owner`);
  }
  return {
    app,
    store,
    url,
    async close() {
      await app.close();
      await services.close();
      await store.close();
    },
  };
}

import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { noPullRequestOpener } from '../core/fixes.ts';
import { toFixFinding } from '../fixing/fix-finding.ts';
import { fixerFor } from '../fixing/fixers/index.ts';
import { cachedAuthentication } from '../core/api-keys.ts';
import { cancellationPlugin } from './cancellation.ts';
import { authPlugin } from './auth.ts';
import type { Deps } from './deps.ts';
import { installErrorHandling, sendError } from './errors.ts';
import { installMetrics } from './metrics.ts';
import { DEFAULT_PAGE_CACHE_BYTES, pageCachePlugin } from './page-cache.ts';
import { FAMILIES } from './family.ts';
import { redactingLogger } from './logging.ts';
import { requestLimitsPlugin, serverTimeouts, type RequestLimits } from './request-limits.ts';
import { sessionPrincipal } from '../core/accounts.ts';
import { accountRoutes } from './routes/account.ts';
import { consoleApiKeyRoutes } from './routes/console/api-keys.ts';
import { consoleMemberRoutes } from './routes/console/members.ts';
import { consoleOutboundWebhookRoutes } from './routes/console/outbound-webhooks.ts';
import { consoleSessionRoutes } from './routes/console/session.ts';
import { consoleUnitRoutes } from './routes/console/units.ts';
import { deviceRoutes } from './routes/device.ts';
import { oidcRoutes } from './routes/oidc.ts';
import { sessionPlugin } from './session.ts';
import { consoleAssetsPlugin } from './console-assets.ts';
import { PUBLISHED_SCHEMAS } from './console-schemas.ts';
import { eventRoutes } from './routes/events.ts';
import { codeHostWebhookRoutes } from './routes/code-host-webhooks.ts';
import { findingRoutes } from './routes/findings.ts';
import { sarifImportRoutes } from './routes/sarif-imports.ts';
import { fixRoutes } from './routes/fixes.ts';
import { scanRoutes } from './routes/scans.ts';
import { unitRoutes } from './routes/units.ts';
import { validatorCompiler } from './validation.ts';
import { VERSION } from '../version.ts';

export interface AppOptions extends Partial<Omit<Deps, 'store'>> {
  store: Deps['store'];
  logger?: FastifyServerOptions['logger'];
  bodyLimit?: number;
  /** Timeouts and per-key limits; without them (tests of the API alone) Fastify's defaults and no per-key limits. */
  limits?: RequestLimits;
  /** How many bytes of list answers the page cache keeps (page-cache.ts); 0 keeps none. */
  pageCacheBytes?: number;
  /** Fastify's trustProxy: the client's address and scheme from a reverse proxy's X-Forwarded-* headers. */
  trustProxy?: boolean | number | string[];
}

/**
 * Accepts any content type as JSON, as FastAPI does: clients that forget the header still work,
 * and an empty body reaches validation as "missing" instead of failing in the parser.
 */
function parseJsonBody(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    // OAuth's token endpoint takes form fields (RFC 6749 §4.1.3); everything else is JSON.
    if (request.url.startsWith('/oauth/') && /^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '')) {
      return done(null, Object.fromEntries(new URLSearchParams(text)));
    }
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const deps: Deps = {
    store: options.store,
    pullRequests: options.pullRequests ?? noPullRequestOpener,
    // Without a queue (tests of the API alone), batches and fixes are stored and stay queued.
    dispatchBatch: options.dispatchBatch ?? (async () => {}),
    dispatchFix: options.dispatchFix ?? (async () => {}),
    dispatchDelivery: options.dispatchDelivery ?? (async () => {}),
    agentConfigured: options.agentConfigured ?? false,
    hasFixer: options.hasFixer ?? ((finding) => fixerFor(toFixFinding(finding)) !== undefined),
    metrics: options.metrics,
    metricsToken: options.metricsToken ?? null,
    sourceBranchExists: options.sourceBranchExists,
    publicUrl: options.publicUrl ?? null,
    oidc: options.oidc ?? null,
    registration: options.registration ?? null,
  };
  const app = Fastify({
    logger: redactingLogger(options.logger ?? false),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    trustProxy: (options.trustProxy ?? false) as FastifyServerOptions['trustProxy'],
    frameworkErrors: sendError,
    ...(options.limits ? serverTimeouts(options.limits) : {}),
  });
  app.setValidatorCompiler(validatorCompiler);
  parseJsonBody(app);
  installErrorHandling(app);
  if (deps.metrics) installMetrics(app, deps.metrics, deps.metricsToken ?? null);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Bulwark API',
        version: 'v1',
        description:
          'Organization-scoped API for security scanning, findings triage and autofix. ' +
          'Authenticate with `Authorization: Bearer <API key>`.',
      },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Organization API key' } },
        schemas: PUBLISHED_SCHEMAS,
      },
      security: [{ bearerAuth: [] }],
      tags: [
        { name: 'account', description: 'The calling key and quota balance' },
        { name: 'repositories', description: 'Repository route family' },
        { name: 'applications', description: 'Application route family: a scan runs across all its repositories' },
        { name: 'events', description: 'Finding lifecycle event feed' },
        { name: 'console', description: "The web console's sign-in and organization settings (session cookie and X-CSRF-Token)" },
        { name: 'device flow', description: "The CLI's device login (RFC 8628) and its approval in the console" },
      ],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // As the console's pages: no other site may show the docs in a frame.
    uiHooks: {
      onRequest: (_request, reply, done) => {
        reply.header('x-frame-options', 'DENY').header('content-security-policy', "frame-ancestors 'none'");
        done();
      },
    },
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok', version: VERSION }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await deps.store.ping();
      return { status: 'ready', database: deps.store.dialect };
    } catch {
      return reply.status(503).send({ status: 'unavailable', database: deps.store.dialect });
    }
  });

  await app.register(cancellationPlugin);
  const changes = deps.store.watchChanges();
  app.addHook('onClose', () => changes.close());
  await app.register(sessionPlugin, { db: deps.store.db });
  await app.register(authPlugin, {
    authenticate: cachedAuthentication(deps.store.db, changes),
    authenticateSession: (request, orgId) => sessionPrincipal(deps.store.db, request.consoleSession!, orgId),
  });
  await app.register(requestLimitsPlugin, { limits: options.limits });
  await app.register(pageCachePlugin, { changes, maxBytes: options.pageCacheBytes ?? DEFAULT_PAGE_CACHE_BYTES });
  await app.register(accountRoutes, { store: deps.store });
  await app.register(consoleSessionRoutes, { store: deps.store });
  await app.register(consoleApiKeyRoutes, { store: deps.store });
  await app.register(consoleMemberRoutes, { store: deps.store });
  await app.register(consoleUnitRoutes, { store: deps.store, registration: deps.registration ?? null });
  await app.register(consoleOutboundWebhookRoutes, { store: deps.store, registration: deps.registration ?? null });
  await app.register(deviceRoutes, { store: deps.store, publicUrl: deps.publicUrl ?? null });
  await app.register(oidcRoutes, { store: deps.store, oidc: deps.oidc ?? null, publicUrl: deps.publicUrl ?? null });
  await app.register(eventRoutes, { store: deps.store });
  await app.register(codeHostWebhookRoutes, {
    store: deps.store,
    tokenBox: deps.registration?.tokenBox ?? null,
    dispatchDelivery: deps.dispatchDelivery,
    publicUrl: deps.publicUrl ?? null,
  });
  for (const family of FAMILIES) {
    await app.register(unitRoutes, { store: deps.store, family });
    await app.register(scanRoutes, { deps, family });
    await app.register(findingRoutes, { deps, family });
    await app.register(fixRoutes, { deps, family });
    await app.register(sarifImportRoutes, { deps, family });
  }
  // Last: the console's pages answer whatever GET path nothing above owns.
  await app.register(consoleAssetsPlugin);
  return app;
}

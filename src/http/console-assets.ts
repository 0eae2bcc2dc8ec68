// The web console: the single-page app built by `npm run build:console` into console/dist, served by the
// service itself (no CDN). Hashed files under /assets/ are cached for a year; index.html is answered for the
// console's own paths (/, /login, /device, /orgs/…) and is never cached. Without a build, those paths answer 503 with the command that makes one.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const DEFAULT_CONSOLE_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../console/dist');

/** A top-level file of the build (favicon.svg, robots.txt): one path segment with an extension, no dot-files. */
const ROOT_FILE = /^\/([A-Za-z0-9_-][A-Za-z0-9._-]*\.[A-Za-z0-9]+)$/;

const NOT_BUILT = 'The web console is not built: run `npm run build:console`, then reload this page.\n';

export interface ConsoleAssetsOptions {
  /** The built console; console/dist beside the sources by default. */
  dist?: string;
}

export async function consoleAssetsPlugin(app: FastifyInstance, options: ConsoleAssetsOptions = {}) {
  const dist = path.resolve(options.dist ?? DEFAULT_CONSOLE_DIST);
  // serve: false: the routes below decide, per request, whether a build exists (it may appear after start).
  await app.register(fastifyStatic, { root: dist, serve: false, suppressWarning: true });
  const built = () => fs.existsSync(path.join(dist, 'index.html'));

  const notBuilt = (reply: FastifyReply) =>
    reply.status(503).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send(NOT_BUILT);

  const sendIndex = (reply: FastifyReply) =>
    reply
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'same-origin')
      .header(
        'content-security-policy',
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
      )
      .sendFile('index.html', dist, { cacheControl: false });

  app.get('/assets/*', { schema: { hide: true } }, (request: FastifyRequest<{ Params: { '*': string } }>, reply) => {
    if (!built()) return notBuilt(reply);
    // Content-hashed names: a changed file gets a new name, so these never need revalidating.
    return reply.sendFile(request.params['*'], path.join(dist, 'assets'), { maxAge: '365d', immutable: true });
  });

  // The console's own paths, named one by one rather than by a catch-all: every other path keeps the
  // router's answer (the API's 404 envelope, 414 for an id too long to route).
  const page = (_request: FastifyRequest, reply: FastifyReply) => (built() ? sendIndex(reply) : notBuilt(reply));
  for (const url of ['/', '/login', '/device', '/orgs', '/orgs/*']) app.get(url, { schema: { hide: true } }, page);

  app.get('/:file', { schema: { hide: true } }, (request: FastifyRequest<{ Params: { file: string } }>, reply) => {
    const file = ROOT_FILE.exec(`/${request.params.file}`)?.[1];
    if (!file || file === 'index.html') return reply.callNotFound();
    if (!built()) return notBuilt(reply);
    if (!fs.existsSync(path.join(dist, file))) return reply.callNotFound();
    return reply.sendFile(file, dist, { maxAge: '1h' });
  });
}

import type { FastifyRequest } from 'fastify';

/**
 * An address of this server as people and providers reach it: `path` below BULWARK_PUBLIC_URL (a path of
 * its own kept, for a server published below one behind a proxy), else below the address this request
 * reached. Normalized (no default port), so every place that hands it out names it the same way.
 */
export function publicAddress(request: FastifyRequest, publicUrl: string | null, path: string): string {
  const base = (publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
  return new URL(`${base}${path}`).href;
}

import type { SecretsVerifySettings } from './settings.ts';

export type Validity = 'valid' | 'invalid' | 'unknown';

/** What a check concluded, and why in a few words (never the credential). */
export interface Verdict {
  validity: Validity;
  reason: string;
}

export const verdict = (validity: Validity, reason: string): Verdict => ({ validity, reason });

export interface ProviderResponse {
  status: number;
  headers: Headers;
  /** The body's first 64 KiB as text. */
  body: string;
}

/** Placeholders a URL template may hold; their values are one DNS label, so they cannot move the host elsewhere. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const BODY_LIMIT = 64 * 1024;

/** How checks reach providers: only a provider key's configured base URL, no redirects followed, a short timeout. */
export interface ProviderHttp {
  call(urlKey: string, path: string, init?: { method?: string; headers?: Record<string, string>; body?: string; vars?: Record<string, string> }): Promise<ProviderResponse>;
  /** The absolute URL a call would go to, for signing (its host is part of a signature). */
  urlOf(urlKey: string, path: string, vars?: Record<string, string>): URL;
}

/** The reason a request did not get an answer; turned into an `unknown` verdict. */
export class Unanswered extends Error {}

export function providerHttp(settings: Pick<SecretsVerifySettings, 'urls' | 'timeoutMs'>, signal?: AbortSignal): ProviderHttp {
  const urlOf = (urlKey: string, path: string, vars: Record<string, string> = {}): URL => {
    const template = settings.urls[urlKey];
    if (!template) throw new Unanswered(`no base URL for ${urlKey}`);
    const base = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = vars[name];
      if (value === undefined || !LABEL.test(value)) throw new Unanswered(`no usable ${name} for the check`);
      return value.toLowerCase();
    });
    const pinned = new URL(base);
    if (!path.startsWith('/')) throw new Unanswered('bad check path');
    const url = new URL(base.replace(/\/+$/, '') + path);
    // The path is appended to the base as text; the result must still be the base's own origin.
    if (url.origin !== pinned.origin) throw new Unanswered('check URL left its provider');
    return url;
  };
  return {
    urlOf,
    async call(urlKey, path, init = {}) {
      const url = urlOf(urlKey, path, init.vars);
      const timeout = AbortSignal.timeout(settings.timeoutMs);
      let response: Response;
      try {
        response = await fetch(url, {
          method: init.method ?? 'GET',
          headers: { 'user-agent': 'bulwark-secrets-verify', accept: 'application/json', ...init.headers },
          body: init.body,
          // A redirect is never followed: it could carry the credential's header to another host.
          redirect: 'manual',
          signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
        });
      } catch {
        if (signal?.aborted) throw signal.reason;
        throw new Unanswered(timeout.aborted ? 'the provider did not answer in time' : 'the provider could not be reached');
      }
      try {
        return { status: response.status, headers: response.headers, body: await readLimited(response) };
      } catch {
        if (signal?.aborted) throw signal.reason;
        throw new Unanswered(timeout.aborted ? 'the provider did not answer in time' : 'the provider\'s answer broke off');
      }
    },
  };
}

async function readLimited(response: Response): Promise<string> {
  if (!response.body) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    chunks.push(Buffer.from(chunk));
    size += chunk.length;
    if (size >= BODY_LIMIT) break;
  }
  return Buffer.concat(chunks).subarray(0, BODY_LIMIT).toString('utf8');
}

/**
 * The usual reading of an answer: 2xx valid; the provider refusing this credential (401, 403 by default)
 * invalid; anything else (a redirect, rate limit, server error) unknown.
 */
export function byStatus(response: ProviderResponse, refused: readonly number[] = [401, 403]): Verdict {
  const { status } = response;
  if (status >= 200 && status < 300) return verdict('valid', `the provider accepted it (HTTP ${status})`);
  if (refused.includes(status)) return verdict('invalid', `the provider refused it (HTTP ${status})`);
  if (status >= 300 && status < 400) return verdict('unknown', `the provider redirected (HTTP ${status}); not followed`);
  if (status === 429) return verdict('unknown', 'the provider rate-limited the check');
  if (status >= 500) return verdict('unknown', `the provider failed (HTTP ${status})`);
  return verdict('unknown', `unexpected answer (HTTP ${status})`);
}

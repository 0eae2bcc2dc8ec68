import type { LookupFunction } from 'node:net';
import https from 'node:https';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { CloneUrlError, resolveCloneHost, type ResolvedHost } from '../scm/clone-url.ts';

// One POST of a webhook message: to the addresses checked just before (the host is resolved, refused
// when any address is private, and the connection pinned to those addresses, so a name that resolves
// elsewhere a moment later cannot reach an internal address), within a deadline, no redirect followed,
// and at most the first few KiB of the answer read.

export interface SendOptions {
  allowPrivateHosts: boolean;
  /** For the whole exchange: connecting, sending, the status and the body kept. */
  timeoutMs: number;
  /** How much of the answer's body is read and kept. */
  maxBodyBytes: number;
  /** Replaces the system resolver (tests). */
  lookup?: (host: string) => Promise<string[]>;
  /** Certificates to trust besides the system's (tests). */
  ca?: string | Buffer;
}

export interface SendResult {
  /** The answer's HTTP status; null when none came. */
  status: number | null;
  latencyMs: number;
  /** Why no answer came (refused target, connection, TLS, deadline); null when one did. */
  error: string | null;
  body: string | null;
}

/** The clone-URL checks' messages, said of a webhook URL. */
export const webhookWording = (message: string) => message.replaceAll('clone URL', 'webhook URL').replaceAll('to clone over', 'to send over');

function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: net.isIP(address) }));
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, entries);
    else callback(null, entries[0]!.address, entries[0]!.family);
  }) as unknown as LookupFunction;
}

export async function postWebhook(url: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: ResolvedHost;
  try {
    if (!/^https:\/\//i.test(url)) throw new CloneUrlError('only https:// webhook URLs are sent to');
    target = await resolveCloneHost(url, { allowLocal: false, localRoot: null, allowPrivateHosts: options.allowPrivateHosts }, options.lookup);
  } catch (error) {
    return { status: null, latencyMs: elapsed(), error: webhookWording((error as Error).message), body: null };
  }
  const parsed = new URL(url);
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let status: number | null = null;
    const chunks: Buffer[] = [];
    let kept = 0;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      resolve({ status, latencyMs: elapsed(), error: status === null ? error : null, body: status === null ? null : Buffer.concat(chunks).toString('utf8') });
    };
    const request = https.request(
      {
        host: target.host,
        port: target.port,
        path: `${parsed.pathname}${parsed.search}`,
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: false,
        lookup: pinnedLookup(target.addresses),
        ...(options.ca ? { ca: options.ca } : {}),
      },
      (response) => {
        status = response.statusCode ?? null;
        response.on('data', (chunk: Buffer) => {
          if (kept < options.maxBodyBytes) {
            const part = chunk.subarray(0, options.maxBodyBytes - kept);
            chunks.push(part);
            kept += part.length;
          }
          if (kept >= options.maxBodyBytes) finish(null);
        });
        response.on('end', () => finish(null));
        response.on('error', () => finish(null));
      },
    );
    const deadline = setTimeout(() => finish(`no answer within ${options.timeoutMs / 1000} s`), options.timeoutMs);
    request.on('error', (error) => finish(error.message));
    request.end(body);
  });
}

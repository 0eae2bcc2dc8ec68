import dns from 'node:dns/promises';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What clone URLs this server may fetch from: https on public addresses by default; local repositories
 * only when allowed and only under the configured root; private, loopback, link-local and metadata
 * addresses only when allowed.
 */
export interface CloneUrlPolicy {
  allowLocal: boolean;
  /**
   * Folder every local repository must live in. `{org}` stands for the organization's slug, so each
   * organization only reaches its own folder. Null refuses every local path.
   */
  localRoot: string | null;
  allowPrivateHosts: boolean;
}

/** A clone URL this server refuses; the message says why and which setting changes it. */
export class CloneUrlError extends Error {}

export type CloneUrlKind = 'https' | 'http' | 'local' | 'other';

export function classifyCloneUrl(url: string): CloneUrlKind {
  if (/^https:\/\//i.test(url)) return 'https';
  if (/^http:\/\//i.test(url)) return 'http';
  if (/^file:\/\//i.test(url) || path.isAbsolute(url)) return 'local';
  return 'other';
}

const FORBIDDEN = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", including the unspecified address
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, including the cloud metadata address 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local, including the metadata address fd00:ec2::254
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address is loopback, private, link-local, metadata, multicast or unspecified. */
export function isForbiddenAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 4) return FORBIDDEN.check(ip, 'ipv4');
  if (family !== 6) return true;
  const lower = ip.toLowerCase();
  // IPv4 written inside IPv6 (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d) is judged as the IPv4 address.
  const embedded = /^(?:::ffff:|::ffff:0:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (embedded) return isForbiddenAddress(embedded[1]!);
  const mappedHex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (mappedHex) {
    const high = parseInt(mappedHex[1]!, 16);
    const low = parseInt(mappedHex[2]!, 16);
    return isForbiddenAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  return FORBIDDEN.check(ip, 'ipv6');
}

/** The folder local repositories of an organization must live in, symlinks resolved. */
function localRootFor(policy: CloneUrlPolicy, orgSlug: string | null): string {
  if (!policy.localRoot) throw new CloneUrlError('local repositories need BULWARK_LOCAL_REPOS_ROOT, the folder they must live in');
  if (policy.localRoot.includes('{org}') && !orgSlug) throw new CloneUrlError('local repositories are only reachable through their organization');
  const root = path.resolve(policy.localRoot.replaceAll('{org}', orgSlug ?? ''));
  return realpathOr(root);
}

function realpathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function localPathOf(url: string): string {
  if (/^file:\/\//i.test(url)) {
    try {
      return fileURLToPath(url);
    } catch {
      throw new CloneUrlError('a file:// clone URL must name an absolute path on this server (file:///path/to/repo)');
    }
  }
  return url;
}

/** Refuses a local path outside the root (symlinks and `..` resolved first). */
function checkLocal(url: string, policy: CloneUrlPolicy, orgSlug: string | null): void {
  if (!policy.allowLocal) throw new CloneUrlError('cloning from local paths is disabled on this server (BULWARK_ALLOW_LOCAL_REPOS)');
  const root = localRootFor(policy, orgSlug);
  const target = realpathOr(path.resolve(localPathOf(url)));
  const relative = path.relative(root, target);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new CloneUrlError(`local repositories must be inside ${policy.localRoot} (BULWARK_LOCAL_REPOS_ROOT)`);
  }
}

/** Host and port of an https clone URL, refusing forms git and the URL parser could read differently. */
function httpsTarget(url: string): { host: string; port: number; literal: string | null } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CloneUrlError('the clone URL is not a valid URL');
  }
  if (parsed.username || parsed.password) throw new CloneUrlError('the clone URL must not carry credentials; store an access token instead');
  if (/[\\\s]/.test(url) || /[^\x21-\x7e]/.test(url)) throw new CloneUrlError('the clone URL contains characters that are not allowed in a URL');
  const rawHost = /^https:\/\/([^/?#]*)/i.exec(url)?.[1]?.replace(/:\d*$/, '').toLowerCase() ?? '';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  // Numeric shorthand such as 0x7f.1 or 2130706433 is turned into 127.0.0.1 by one parser and not another.
  if (rawHost.replace(/^\[|\]$/g, '') !== host) throw new CloneUrlError('write the clone URL\'s host in its plain form');
  if (!host) throw new CloneUrlError('the clone URL has no host');
  return { host, port: parsed.port ? Number(parsed.port) : 443, literal: net.isIP(host) ? host : null };
}

/**
 * The checks that need no network: scheme, local root, literal addresses. `orgSlug` picks the
 * organization's folder when the local root names `{org}`.
 */
export function checkCloneUrl(url: string, policy: CloneUrlPolicy, orgSlug: string | null = null): CloneUrlKind {
  const kind = classifyCloneUrl(url);
  if (kind === 'local') checkLocal(url, policy, orgSlug);
  else if (kind === 'http') throw new CloneUrlError('refusing to clone over plain http; use an https:// clone URL');
  else if (kind === 'other') throw new CloneUrlError('unsupported clone URL: only https:// (and local paths when enabled) are accepted');
  else {
    const { literal } = httpsTarget(url);
    if (literal && !policy.allowPrivateHosts && isForbiddenAddress(literal)) throw forbidden(literal);
  }
  return kind;
}

function forbidden(address: string): CloneUrlError {
  return new CloneUrlError(`the clone URL's host is a loopback, private, link-local or metadata address (${address}); set BULWARK_ALLOW_PRIVATE_HOSTS to allow it`);
}

export interface ResolvedHost {
  host: string;
  port: number;
  addresses: string[];
}

/**
 * Resolves an https clone URL's host and refuses it when any address is forbidden. Run right before each
 * network command, and hand the addresses to git with `curloptResolveOf`, so git connects to exactly the
 * addresses checked here: a name that resolves differently a moment later (DNS rebinding) cannot reach
 * an internal address. `lookup` may be replaced in tests.
 */
export async function resolveCloneHost(
  url: string,
  policy: CloneUrlPolicy,
  lookup: (host: string) => Promise<string[]> = systemLookup,
): Promise<ResolvedHost> {
  const { host, port, literal } = httpsTarget(url);
  let addresses: string[];
  if (literal) addresses = [literal];
  else {
    try {
      addresses = await lookup(host);
    } catch {
      throw new CloneUrlError(`the clone URL's host ${host} could not be resolved`);
    }
  }
  if (!addresses.length) throw new CloneUrlError(`the clone URL's host ${host} could not be resolved`);
  if (!policy.allowPrivateHosts) {
    const bad = addresses.find(isForbiddenAddress);
    if (bad) throw forbidden(bad);
  }
  return { host, port, addresses };
}

async function systemLookup(host: string): Promise<string[]> {
  return (await dns.lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
}

/** git's `http.curloptResolve` value pinning the host to the checked addresses. */
export function curloptResolveOf(resolved: ResolvedHost): string {
  const addresses = resolved.addresses.map((a) => (net.isIPv6(a) ? `[${a}]` : a)).join(',');
  return `${resolved.host}:${resolved.port}:${addresses}`;
}

/**
 * The registration check: everything `checkCloneUrl` refuses, and a host name that resolves to a forbidden
 * address now. A name that does not resolve from here is left to the check made at every fetch.
 */
export async function validateCloneUrl(url: string, policy: CloneUrlPolicy, orgSlug: string | null = null): Promise<void> {
  const kind = checkCloneUrl(url, policy, orgSlug);
  if (kind !== 'https' || policy.allowPrivateHosts) return;
  try {
    await resolveCloneHost(url, policy);
  } catch (error) {
    if (error instanceof CloneUrlError && /could not be resolved/.test(error.message)) return;
    throw error;
  }
}

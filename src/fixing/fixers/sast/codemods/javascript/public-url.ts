import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, functionAround, jsHelper, jsImport, replace } from '../edit-kit.ts';

// An outbound request to a URL from the request (fetch, axios, got, needle, http.get, …) → the URL awaited
// through publicUrl(), a helper added to the module: an http(s) URL whose host resolves only to public
// addresses is fetched as before; loopback, private networks, link-local metadata (169.254.169.254),
// other special ranges and other schemes throw before any request is sent. The check is awaited, so a
// request made outside an async function is refused.

export const PUBLIC_URL_HELPER = 'publicUrl';

const helperSource = (typed: boolean) => String.raw`
async function ${PUBLIC_URL_HELPER}(url${typed ? ': string | URL' : ''})${typed ? ': Promise<string>' : ''} {
  // The URL when it is http(s) and its host resolves only to public addresses, else an Error: a request cannot reach internal services.
  const parsed = new URL(String(url));
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("only http and https URLs may be fetched");
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  // IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are checked against the IPv4 ranges.
  const blocked = new net.BlockList();
  for (const [range, bits] of [["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12], ["192.0.0.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 3]]${typed ? ' as const' : ''}) blocked.addSubnet(range, bits, "ipv4");
  for (const [range, bits] of [["::", 127], ["64:ff9b::", 96], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8]]${typed ? ' as const' : ''}) blocked.addSubnet(range, bits, "ipv6");
  const addresses = net.isIP(host) ? [{ address: host, family: net.isIP(host) }] : await dns.promises.lookup(host, { all: true });
  for (const { address, family } of addresses) {
    if (blocked.check(address, family === 6 ? "ipv6" : "ipv4")) throw new Error("the URL's host is not a public address");
  }
  return String(url);
}
`;

/** The argument that holds the URL: the second of needle(method, url), else the first. */
function urlArgument(call: SgNode): SgNode | undefined {
  const args = argumentsOf(call);
  const callee = fieldOf(call, 'function')?.text() ?? '';
  return /^needle$/.test(callee) ? args[1] : args[0];
}

const isAsync = (fn: SgNode) => fn.children().some((c) => c.text() === 'async' && !c.isNamed());

export const javascriptPublicUrl: Codemod = {
  name: 'javascript/public-url',
  rules: ['javascript.lang.ssrf.outbound-request'],
  rewrite({ node, root, text, parser }) {
    const call = node!;
    if (kindOf(call) !== 'call_expression') return refuse('the URL is given in an options object, which the codemod does not rewrite');
    const url = urlArgument(call);
    if (!url || ['object', 'spread_element'].includes(kindOf(url))) return refuse('the URL is not an argument of the call');
    if (kindOf(url) === 'await_expression' && url.text().includes(`${PUBLIC_URL_HELPER}(`)) return refuse(`the URL is already checked by ${PUBLIC_URL_HELPER}()`);
    const fn = functionAround(call);
    if (!fn || !isAsync(fn)) return refuse('the request is made outside an async function, where the address check cannot be awaited');
    return {
      // Insertions at one place come out last first: the imports, then the helper.
      edits: [
        replace(url, `await ${PUBLIC_URL_HELPER}(${url.text()})`),
        ...jsHelper(root!, text, parser, PUBLIC_URL_HELPER, helperSource, node!),
        ...jsImport(root!, text, 'net', 'node:net'),
        ...jsImport(root!, text, 'dns', 'node:dns'),
      ],
      note:
        `Fetched the URL only when it is http(s) and its host resolves to public addresses (${PUBLIC_URL_HELPER}); one that points at ` +
        'this machine, a private network or a cloud metadata service now throws. Where the app only ever calls known services, ' +
        'an allow-list of their hosts is tighter still.',
    };
  },
};

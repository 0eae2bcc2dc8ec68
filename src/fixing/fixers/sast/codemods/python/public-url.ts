import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, keywordArgument, pythonHelper, pythonImport, replace } from '../edit-kit.ts';

// An outbound request to a URL from the request → the URL passed through public_url(), a small helper added
// to the module: an http(s) URL whose host resolves only to public addresses is fetched as before; one that
// points at loopback, a private network, link-local metadata services (169.254.169.254) or another scheme
// raises ValueError before any request is sent.

export const PUBLIC_URL_HELPER = 'public_url';

const HELPER = `
def ${PUBLIC_URL_HELPER}(url):
    """The URL when it is http(s) and its host resolves only to public addresses, else ValueError: a request cannot reach internal services."""
    parts = urllib.parse.urlsplit(str(url))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("only http and https URLs may be fetched")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    for *_, address in socket.getaddrinfo(parts.hostname, port):
        if not ipaddress.ip_address(address[0]).is_global:
            raise ValueError("the URL's host is not a public address")
    return url
`;

/** The argument that holds the URL: `url=…`, the second of `client.request(method, url)`, else the first. */
function urlArgument(call: SgNode): SgNode | undefined {
  const named = keywordArgument(call, 'url');
  if (named) return fieldOf(named, 'value') ?? undefined;
  const positional = argumentsOf(call).filter((a) => kindOf(a) !== 'keyword_argument' && !kindOf(a).includes('splat'));
  const callee = fieldOf(call, 'function')?.text() ?? '';
  if (/\.request$/.test(callee) && !/^urllib\.request$/.test(callee)) return positional[1];
  if (/setopt$/.test(callee)) return positional[2];
  return positional[0];
}

export const pythonPublicUrl: Codemod = {
  name: 'python/public-url',
  rules: ['python.lang.ssrf.outbound-request'],
  rewrite({ node, root, text }) {
    const call = node!;
    if (kindOf(call) !== 'call') return refuse('the request is not a call the codemod reads');
    const url = urlArgument(call);
    if (!url) return refuse('the URL is not an argument of the call');
    if (kindOf(url) === 'call' && fieldOf(url, 'function')?.text() === PUBLIC_URL_HELPER) return refuse(`the URL is already checked by ${PUBLIC_URL_HELPER}()`);
    return {
      // Insertions at one place come out last first: the helper below its imports.
      edits: [
        replace(url, `${PUBLIC_URL_HELPER}(${url.text()})`),
        ...pythonHelper(root!, text, PUBLIC_URL_HELPER, HELPER),
        ...pythonImport(root!, text, 'import urllib.parse', 'urllib'),
        ...pythonImport(root!, text, 'import socket', 'socket'),
        ...pythonImport(root!, text, 'import ipaddress', 'ipaddress'),
      ],
      note:
        `Fetched the URL only when it is http(s) and its host resolves to public addresses (${PUBLIC_URL_HELPER}); one that points at ` +
        'this machine, a private network or a cloud metadata service now raises ValueError. Where the app only ever calls known ' +
        'services, an allow-list of their hosts is tighter still.',
    };
  },
};

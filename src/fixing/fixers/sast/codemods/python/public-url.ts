import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { declaredBelow, pythonTwoEvidence } from '../app-facts.ts';
import { refuse, type Codemod, type CodemodContext, type CodemodEdit } from '../codemod.ts';
import { appendArguments, argumentsOf, keywordArgument, pythonHelper, pythonImport, pythonImportsModule, replace } from '../edit-kit.ts';
import { soleAssignment } from './strings.ts';

// An outbound request to a URL from the request → the URL passed through public_url(), a small helper added
// to the module: an http(s) URL whose host resolves only to public addresses is fetched as before; one that
// points at loopback, a private network, link-local metadata services (169.254.169.254) or another scheme
// raises ValueError before any request is sent.
//
// A check of the first URL is only a guard when no redirect can take the request elsewhere, so each client
// is handled by how it follows redirects:
// - requests follows them (head only when told to): the call gets a response hook, public_redirect(), which
//   requests runs on every response before it follows its redirect, so each target is checked by
//   public_url() before it is requested (requests' hooks= argument, in every 2.x release);
// - urllib's urlopen follows them: it is opened through an opener whose redirect handler checks each target;
// - urllib3 and aiohttp follow them by default: the call is refused unless redirects are already off;
// - httpx (0.20 and later) and pycurl do not follow redirects unless told to.
// A URL whose scheme and host are written in the code (only a path or query comes from the request) is not
// a request the caller can point elsewhere: nothing to guard, and the codemod says so.

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

const PUBLIC_REDIRECT = `
def public_redirect(response, *args, **kwargs):
    """A requests response hook: a redirect is followed only to a URL public_url() accepts, checked before it is requested."""
    if response.status_code in (301, 302, 303, 307, 308) and "location" in response.headers:
        public_url(urllib.parse.urljoin(response.url, response.headers["location"]))
    return response
`;

const OPEN_PUBLIC = `
def open_public(url, *args, **kwargs):
    """urllib.request.urlopen(url, …) with every redirect's target checked by public_url() before it is followed."""

    class PublicRedirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req, fp, code, msg, headers, newurl):
            return super().redirect_request(req, fp, code, msg, headers, public_url(newurl))

    return urllib.request.build_opener(PublicRedirects).open(public_url(url), *args, **kwargs)
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

/** The literal text a URL starts with: of a string, an f-string, a concatenation or a format() of a literal. */
function literalStart(url: SgNode): string | null {
  const kind = kindOf(url);
  if (kind === 'string') {
    const body = url.text().replace(/^[rbufRBUF]*("""|'''|"|')/, '');
    const interpolation = url.children().find((c) => kindOf(c) === 'interpolation');
    return interpolation ? body.slice(0, interpolation.range().start.index - url.range().start.index - (url.text().length - body.length)) : body;
  }
  if (kind === 'binary_operator' && ['+', '%'].includes(fieldOf(url, 'operator')?.text() ?? '')) return literalStart(fieldOf(url, 'left')!);
  if (kind === 'call' && /\.format$/.test(fieldOf(url, 'function')?.text() ?? '')) return literalStart(fieldOf(fieldOf(url, 'function')!, 'object')!);
  if (kind === 'parenthesized_expression') return literalStart(url.children().find((c) => c.isNamed())!);
  return null;
}

/** Why the URL cannot be pointed at another host, when its scheme and host are fixed or it is the app's own address. */
function fixedHost(url: SgNode, call: SgNode): string | null {
  const origin = kindOf(url) === 'identifier' ? soleAssignment(url, call) : null;
  const value = origin ? origin.value : url;
  if (/^request\.(host_url|url_root|base_url)\b/.test(value.text()) || /^request\.build_absolute_uri\(/.test(value.text())) {
    return `the URL is the app's own address (${value.text().split(/[\s+]/)[0]}), so the request goes back to the app itself`;
  }
  const start = literalStart(value);
  const host = start ? /^[a-z][a-z0-9+.-]*:\/\/([^/?#{}%]+)[/?#]/i.exec(start) : null;
  return host ? `the URL's scheme and host are written in the code (${start!.slice(0, host[0].length - 1)}); only its path or query comes from the request, so callers cannot point it at another host` : null;
}

/** `import a.b` unless the module imports it already: `import a` alone does not load a.b. */
function submoduleImport(root: SgNode, text: string, module: string): CodemodEdit[] {
  if (new RegExp(`^\\s*import\\s+([\\w.]+\\s*,\\s*)*${module.replace('.', '\\.')}\\b`, 'm').test(text)) return [];
  return pythonImport(root, text, `import ${module}`, module);
}

type Plan = { wrap: 'url' } | { wrap: 'hook' } | { wrap: 'call'; helper: 'open_public' } | { refuse: string };

/** How the client follows redirects, and so how the URL is guarded. */
async function planFor(call: SgNode, context: CodemodContext): Promise<Plan> {
  const callee = fieldOf(call, 'function')?.text() ?? '';
  const redirects = keywordArgument(call, 'allow_redirects') ?? keywordArgument(call, 'follow_redirects') ?? keywordArgument(call, 'redirect');
  const redirectsOff = redirects ? fieldOf(redirects, 'value')?.text() === 'False' : false;
  const method = callee.split('.').at(-1)!;
  const isRequests = /^requests\./.test(callee) || (pythonImportsModule(context.root!, 'requests') && !pythonImportsModule(context.root!, 'httpx') && !pythonImportsModule(context.root!, 'aiohttp') && !pythonImportsModule(context.root!, 'urllib3'));
  const why = (client: string) => `${client} follows redirects here, so a check of the first URL is bypassed by a public URL that redirects to an internal one`;

  if (/(^|\.)urlopen$/.test(callee)) {
    if (/^urllib\.urlopen$/.test(callee)) return { refuse: 'urllib.urlopen is Python 2, which the public_url() helper does not run on' };
    return { wrap: 'call', helper: 'open_public' };
  }
  if (/^urllib\.request\.Request$/.test(callee) || /setopt$/.test(callee)) return { wrap: 'url' };
  if (/^httpx\./.test(callee) || (pythonImportsModule(context.root!, 'httpx') && !isRequests)) {
    if (redirects && !redirectsOff) return { refuse: why('httpx') };
    const old = await declaredBelow(context, 'httpx', '0.20');
    return old ? { refuse: `the repository declares httpx${old}, which ${why('before 0.20')}`.replace('which before 0.20 follows', 'which follows') } : { wrap: 'url' };
  }
  if (redirectsOff) return { wrap: 'url' };
  if (isRequests) {
    if (method === 'head' && !redirects) return { wrap: 'url' };
    if (keywordArgument(call, 'hooks')) return { refuse: `${why('requests')}, and the call already passes its own hooks=, which a redirect check would have to join by hand` };
    if (argumentsOf(call).some((a) => kindOf(a) === 'dictionary_splat')) return { refuse: `${why('requests')}, and the call takes keyword arguments from a **dict, which may carry hooks= already` };
    return { wrap: 'hook' };
  }
  if (pythonImportsModule(context.root!, 'urllib3')) return { refuse: `${why('urllib3')}; pass redirect=False if the app never needs them` };
  if (pythonImportsModule(context.root!, 'aiohttp')) return { refuse: `${why('aiohttp')}; pass allow_redirects=False if the app never needs them` };
  return { refuse: `${callee}() is a client whose redirect handling cannot be told from the file, so a check of the first URL may be bypassed by a redirect` };
}

export const pythonPublicUrl: Codemod = {
  name: 'python/public-url',
  rules: ['python.lang.ssrf.outbound-request'],
  async rewrite(context) {
    const { root, text } = context;
    const call = context.node!;
    if (kindOf(call) !== 'call') return refuse('the request is not a call the codemod reads');
    const url = urlArgument(call);
    if (!url) return refuse('the URL is not an argument of the call');
    if (kindOf(url) === 'call' && fieldOf(url, 'function')?.text() === PUBLIC_URL_HELPER) return refuse(`the URL is already checked by ${PUBLIC_URL_HELPER}()`);
    const fixed = fixedHost(url, call);
    if (fixed) return refuse(`${fixed}: not a server-side request forgery to guard`);
    const python2 = await pythonTwoEvidence(context, text);
    if (python2) return refuse(`the app runs on Python 2 (${python2}), which the public_url() helper (urllib.parse, ipaddress) does not run on`);
    const plan = await planFor(call, context);
    if ('refuse' in plan) return refuse(plan.refuse);

    const edits: CodemodEdit[] = [];
    let how: string;
    if (plan.wrap === 'url') {
      edits.push(replace(url, `${PUBLIC_URL_HELPER}(${url.text()})`));
      how = `Fetched the URL only when it is http(s) and its host resolves to public addresses (${PUBLIC_URL_HELPER}); the client does not follow redirects here.`;
    } else if (plan.wrap === 'hook') {
      edits.push(replace(url, `${PUBLIC_URL_HELPER}(${url.text()})`), appendArguments(call, ['hooks={"response": public_redirect}'], text));
      how =
        `Fetched the URL only when it is http(s) and its host resolves to public addresses (${PUBLIC_URL_HELPER}), and gave the request a response hook ` +
        '(public_redirect) that checks every redirect target the same way before requests follows it; a redirect to an internal address now raises ValueError.';
    } else {
      edits.push(replace(fieldOf(call, 'function')!, 'open_public'));
      how =
        `Opened the URL through open_public(), which opens it only when it is http(s) and its host resolves to public addresses (${PUBLIC_URL_HELPER}) ` +
        'and checks every redirect target the same way; a redirect to an internal address now raises ValueError.';
      if (argumentsOf(call).some((a) => /^(context|cafile|capath|cadefault)$/.test(kindOf(a) === 'keyword_argument' ? fieldOf(a, 'name')!.text() : ''))) {
        return refuse('urlopen() is given a TLS context or CA file, which an opener takes differently; check redirects by hand');
      }
    }
    // Insertions at one place come out last first: public_url above the helper that calls it.
    const hasPublicUrl = pythonHelper(root!, text, PUBLIC_URL_HELPER, HELPER, call).length === 0;
    if (plan.wrap !== 'url') {
      const [name, own] = plan.wrap === 'hook' ? ['public_redirect', PUBLIC_REDIRECT] : ['open_public', OPEN_PUBLIC];
      edits.push(...pythonHelper(root!, text, name, hasPublicUrl ? own : `${HELPER.trim()}\n\n\n${own.trim()}\n`, call));
    }
    edits.push(
      ...(plan.wrap !== 'url' ? [] : pythonHelper(root!, text, PUBLIC_URL_HELPER, HELPER, call)),
      ...(plan.wrap === 'call' ? submoduleImport(root!, text, 'urllib.request') : []),
      ...submoduleImport(root!, text, 'urllib.parse'),
      ...pythonImport(root!, text, 'import socket', 'socket'),
      ...pythonImport(root!, text, 'import ipaddress', 'ipaddress'),
    );
    return {
      edits,
      note: `${how} A URL that points at this machine, a private network or a cloud metadata service now raises ValueError. Where the app only ever calls known services, an allow-list of their hosts is tighter still.`,
    };
  },
};

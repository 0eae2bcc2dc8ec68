import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, jsHelper, replace } from '../edit-kit.ts';

// A redirect to a location from the request → the location passed through sameSiteLocation(), a small
// helper added to the module: a path on this site ("/account?tab=2") redirects as before, anything that
// would leave it (a scheme, "//host", a backslash or control character browsers read as one) goes to "/".
// The same for a Location header set by hand and for browser code assigning location.href.

export const SAME_SITE_HELPER = 'sameSiteLocation';

const helperSource = (typed: boolean) => String.raw`
function ${SAME_SITE_HELPER}(location${typed ? ': unknown' : ''}, fallback = "/")${typed ? ': string' : ''} {
  // The location when it is a path on this site, else the fallback, so a redirect cannot leave the site.
  const path = String(location ?? "");
  return path.startsWith("/") && !path.startsWith("//") && !/[\\\u0000-\u001f]/.test(path) ? path : fallback;
}
`;

/** The expression that holds the location in the reported redirect, header or assignment. */
function locationOf(node: SgNode): SgNode | undefined {
  const kind = kindOf(node);
  if (kind === 'pair') return fieldOf(node, 'value') ?? undefined;
  if (kind === 'assignment_expression') return fieldOf(node, 'right') ?? undefined;
  if (kind !== 'call_expression') return undefined;
  const args = argumentsOf(node);
  const callee = fieldOf(node, 'function')?.text() ?? '';
  if (/\.(setHeader|header|set)$/.test(callee)) return args[1];
  // res.redirect(301, url)
  if (args.length >= 2 && kindOf(args[0]!) === 'number') return args[1];
  return args[0];
}

export const javascriptSameSiteRedirect: Codemod = {
  name: 'javascript/same-site-redirect',
  rules: ['javascript.lang.open-redirect.redirect'],
  rewrite({ node, root, text, parser }) {
    const location = locationOf(node!);
    if (!location || kindOf(location) === 'spread_element') return refuse('the location is not an argument or value the codemod reads');
    if (kindOf(location) === 'call_expression' && fieldOf(location, 'function')?.text() === SAME_SITE_HELPER) return refuse(`the location already goes through ${SAME_SITE_HELPER}()`);
    return {
      edits: [replace(location, `${SAME_SITE_HELPER}(${location.text()})`), ...jsHelper(root!, text, parser, SAME_SITE_HELPER, helperSource, node!)],
      note: `Redirected only to paths on this site (${SAME_SITE_HELPER}); a location elsewhere now goes to "/". Allow-list other hosts by hand if the app needs them.`,
    };
  },
};

import { kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, pythonHelper, replace } from '../edit-kit.ts';

// A redirect to a location from the request → the location passed through same_site_location(), a small
// helper added to the module: a path on this site ("/account?tab=2") redirects as before, anything that
// would leave it (a scheme, "//host", a backslash or control character browsers read as one) goes to "/".

export const SAME_SITE_HELPER = 'same_site_location';

const HELPER = `
def ${SAME_SITE_HELPER}(location, fallback="/"):
    """The location when it is a path on this site, else the fallback, so a redirect cannot leave the site."""
    location = str(location or "")
    if location.startswith("/") and not location.startswith("//") and "\\\\" not in location and all(c >= " " for c in location):
        return location
    return fallback
`;

export const pythonSameSiteRedirect: Codemod = {
  name: 'python/same-site-redirect',
  rules: ['python.lang.open-redirect.redirect'],
  rewrite({ node, root, text }) {
    const call = node!;
    if (kindOf(call) !== 'call') return refuse('the redirect is not a call the codemod reads');
    const location = argumentsOf(call)[0];
    if (!location || kindOf(location) === 'keyword_argument') return refuse('the location is not the first argument');
    return {
      edits: [replace(location, `${SAME_SITE_HELPER}(${location.text()})`), ...pythonHelper(root!, text, SAME_SITE_HELPER, HELPER, call)],
      note: `Redirected only to paths on this site (${SAME_SITE_HELPER}); a location elsewhere now goes to "/". Allow-list other hosts by hand if the app needs them.`,
    };
  },
};

import { refuse, type Codemod } from '../codemod.ts';
import { appendArguments } from '../edit-kit.ts';

// redirect_to a location from the request → redirect_to ..., allow_other_host: false (Rails 7+): a path
// or URL of this application redirects as before; another host raises ActionController::Redirecting::
// UnsafeRedirectError instead of sending the user there. Older Rails ignores the option, so the codemod
// reads the Rails version the app is locked to and refuses below 7.

/** The major version of Rails in Gemfile.lock, or null when the lockfile does not say. */
function railsMajor(lockfile: string | null): number | null {
  const locked = lockfile && /^ {4}(?:rails|actionpack) \((\d+)\./m.exec(lockfile);
  return locked ? Number(locked[1]) : null;
}

export const rubyRedirectSameHost: Codemod = {
  name: 'ruby/redirect-same-host',
  rules: ['ruby.rails.open-redirect.redirect-to-params'],
  async rewrite({ node, text, readFile }) {
    const call = node!;
    const major = railsMajor(await readFile('Gemfile.lock'));
    if (major === null) return refuse('the Rails version is not locked in Gemfile.lock; allow_other_host needs Rails 7');
    if (major < 7) return refuse(`Rails ${major} ignores allow_other_host (it came with Rails 7): redirect to a path you build instead`);
    return {
      edits: [appendArguments(call, ['allow_other_host: false'], text)],
      note: 'Redirects only within this application (allow_other_host: false); a location on another host now raises UnsafeRedirectError.',
    };
  },
};

import { fieldOf } from '../../../shared/syntax.ts';
import { pythonBelow } from '../app-facts.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { pythonImport, replace } from '../edit-kit.ts';

// random.<f>(…) where a token, key or password is made → the same method of secrets.SystemRandom(), which
// draws from the operating system's CSPRNG: same API, same ranges, unpredictable values.

const SAME_API = /^random\.(choice|choices|randint|randrange|random|sample|shuffle|getrandbits|uniform)$/;

export const pythonSecretsRandom: Codemod = {
  name: 'python/secrets-random',
  rules: ['python.lang.crypto.insecure-random'],
  async rewrite(context) {
    const { node, root, text } = context;
    const fn = fieldOf(node!, 'function')!;
    if (!SAME_API.test(fn.text())) return refuse(`${fn.text()} has no counterpart in secrets.SystemRandom`);
    const method = fn.text().slice('random.'.length);
    // The secrets module is Python 3.6; random.SystemRandom is the same generator on older Pythons.
    const old = await pythonBelow(context, text, '3.6');
    if (old) {
      return { edits: [replace(fn, `random.SystemRandom().${method}`)], note: `Drew the value from the operating system's generator (random.SystemRandom().${method}; ${old}, which has no secrets module) instead of the predictable one.` };
    }
    const replacement = method === 'choice' ? 'secrets.choice' : `secrets.SystemRandom().${method}`;
    return {
      edits: [replace(fn, replacement), ...pythonImport(root!, text, 'import secrets', 'secrets')],
      note: `Drew the value from the secrets module (${replacement}) instead of the predictable random module.`,
    };
  },
};

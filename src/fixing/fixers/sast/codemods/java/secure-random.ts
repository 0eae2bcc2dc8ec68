import { kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { replace } from '../edit-kit.ts';

// new Random() → new java.security.SecureRandom(); Math.random() → new java.security.SecureRandom().nextDouble().
// SecureRandom extends Random: every method called on the object still exists and gives values in the same
// ranges. The class is named in full, so no import is added or shadowed.

const SECURE_RANDOM = 'new java.security.SecureRandom()';

export const javaSecureRandom: Codemod = {
  name: 'java/secure-random',
  rules: ['java.lang.crypto.insecure-random'],
  rewrite({ node }) {
    const match = node!;
    const text = match.text();
    if (kindOf(match) === 'object_creation_expression') {
      if (text.includes('{')) return refuse('the Random here is an anonymous subclass; its overrides would need rewriting by hand');
      const seeded = !/\(\s*\)$/.test(text);
      return {
        edits: [replace(match, SECURE_RANDOM)],
        note: seeded
          ? 'Made the values with java.security.SecureRandom and dropped the fixed seed, which made every value predictable.'
          : 'Made the values with java.security.SecureRandom, which cannot be predicted from earlier values.',
      };
    }
    if (/^Math\.random\s*\(\s*\)$/.test(text)) {
      return { edits: [replace(match, `${SECURE_RANDOM}.nextDouble()`)], note: 'Drew the number from java.security.SecureRandom (nextDouble(): the same [0, 1) range).' };
    }
    if (text.startsWith('ThreadLocalRandom')) return refuse('ThreadLocalRandom has methods java.util.Random gained only in Java 17; use java.security.SecureRandom by hand');
    return refuse('RandomStringUtils draws from java.util.Random; use RandomStringUtils.secure() (commons-lang 3.16+) or pass a SecureRandom');
  },
};

import { kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { SHA256_NOTE, whyHashMustStay } from '../hash-use.ts';
import { argumentsOf, replace } from '../edit-kit.ts';

// createHash("md5"/"sha1") → createHash("sha256") where the digest is not a stored password (stored
// hashes must migrate, so there the codemod refuses and says what to use).

export const javascriptSha256Hash: Codemod = {
  name: 'javascript/sha256-hash',
  rules: ['javascript.lang.crypto.weak-hash'],
  rewrite({ node }) {
    const call = node!;
    const mustStay = whyHashMustStay(call, 'bcrypt, argon2, crypto.scrypt');
    if (mustStay) return refuse(mustStay);
    const algorithm = argumentsOf(call)[0];
    if (!algorithm || kindOf(algorithm) !== 'string') return refuse('the algorithm is not a string literal of createHash()');
    const quote = algorithm.text()[0]!;
    return { edits: [replace(algorithm, `${quote}sha256${quote}`)], note: SHA256_NOTE };
  },
};

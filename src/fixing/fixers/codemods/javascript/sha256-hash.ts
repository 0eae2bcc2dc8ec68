import { fieldOf, kindOf } from '../../syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, functionAround, replace, statementOf } from '../edit-kit.ts';

// createHash("md5"/"sha1") → createHash("sha256") where the digest is not a stored password (stored
// hashes must migrate, so there the codemod refuses and says what to use).

const PASSWORD = /pass(word)?|passwd|pwd|credential/i;
const INTEROP = /gravatar|etag|cache|checksum|content-?md5/i;

export const javascriptSha256Hash: Codemod = {
  name: 'javascript/sha256-hash',
  rules: ['javascript.lang.crypto.weak-hash'],
  rewrite({ node }) {
    const call = node!;
    const statement = statementOf(call).text();
    const scope = functionAround(call);
    const scopeName = scope ? (fieldOf(scope, 'name')?.text() ?? '') : '';
    if (PASSWORD.test(statement) || PASSWORD.test(scopeName)) {
      return refuse('the digest stores or checks a password: switch to a password hash (bcrypt, argon2, crypto.scrypt) and migrate the stored hashes at the next login');
    }
    if (INTEROP.test(statement)) return refuse('the digest looks like an identifier another system expects in this algorithm (Gravatar, ETag, Content-MD5)');
    const algorithm = argumentsOf(call)[0];
    if (!algorithm || kindOf(algorithm) !== 'string') return refuse('the algorithm is not a string literal of createHash()');
    const quote = algorithm.text()[0]!;
    return { edits: [replace(algorithm, `${quote}sha256${quote}`)], note: 'Hashed with SHA-256 instead of a broken algorithm; digests stored or compared elsewhere change with it.' };
  },
};

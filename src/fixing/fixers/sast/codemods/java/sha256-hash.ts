import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, replace } from '../edit-kit.ts';
import { SHA256_NOTE, whyHashMustStay } from '../hash-use.ts';

// MessageDigest.getInstance("MD5"/"SHA-1") → "SHA-256"; commons-codec DigestUtils.md5Hex/sha1Hex/... →
// sha256Hex/sha256; Guava Hashing.md5()/sha1() → Hashing.sha256(). Each returns the same type as before
// (a MessageDigest, a hex String or byte[], a HashFunction); only the digest's length grows.

export const javaSha256Hash: Codemod = {
  name: 'java/sha256-hash',
  rules: ['java.lang.crypto.weak-hash'],
  rewrite({ node }) {
    const call = node!;
    const mustStay = whyHashMustStay(call, 'BCrypt, Argon2, PBKDF2 through SecretKeyFactory');
    if (mustStay) return refuse(mustStay);
    const text = call.text();
    if (/^(java\.security\.)?MessageDigest\.getInstance\(/.test(text)) {
      const algorithm = argumentsOf(call)[0];
      if (!algorithm || kindOf(algorithm) !== 'string_literal') return refuse('the algorithm is not a string literal of MessageDigest.getInstance()');
      return { edits: [replace(algorithm, '"SHA-256"')], note: SHA256_NOTE };
    }
    // The rule reports the whole chain (Hashing.md5().hashString(s)); the digest is its first call.
    let first = call;
    for (let inner = fieldOf(first, 'object'); inner && kindOf(inner) === 'method_invocation'; inner = fieldOf(first, 'object')) first = inner;
    const method = fieldOf(first, 'name')!;
    const owner = fieldOf(first, 'object')?.text();
    const digestUtils = owner === 'DigestUtils' ? /^(?:md5|sha1|sha)(Hex)?$/.exec(method.text()) : null;
    if (digestUtils) return { edits: [replace(method, `sha256${digestUtils[1] ?? ''}`)], note: SHA256_NOTE };
    if (owner === 'Hashing' && /^(md5|sha1)$/.test(method.text())) return { edits: [replace(method, 'sha256')], note: SHA256_NOTE };
    return refuse('this digest call has no SHA-256 counterpart the codemod knows');
  },
};

import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { SHA256_NOTE, whyHashMustStay } from '../hash-use.ts';
import { argumentsOf, pythonImport, replace } from '../edit-kit.ts';

// hashlib.md5/sha1 → hashlib.sha256 where the digest is not a stored password: a password hash must be
// migrated (stored hashes would no longer match), so there the codemod refuses and says what to use.

export const pythonSha256Hash: Codemod = {
  name: 'python/sha256-hash',
  rules: ['python.lang.crypto.weak-hash'],
  rewrite({ node, root, text }) {
    const call = node!;
    const fn = fieldOf(call, 'function')!;
    const mustStay = whyHashMustStay(call, 'bcrypt, argon2, werkzeug.security.generate_password_hash');
    if (mustStay) return refuse(mustStay);
    if (/^hashlib\.(md5|sha1)$/.test(fn.text())) {
      return { edits: [replace(fn, 'hashlib.sha256')], note: SHA256_NOTE };
    }
    if (fn.text() === 'md5' || fn.text() === 'sha1') {
      if (!new RegExp(`^\\s*from\\s+hashlib\\s+import\\b[^\\n]*\\b${fn.text()}\\b`, 'm').test(text)) return refuse(`${fn.text()} is not hashlib's, so its SHA-256 counterpart is unknown`);
      return { edits: [replace(fn, 'sha256'), ...pythonImport(root!, text, 'from hashlib import sha256', 'sha256')], note: SHA256_NOTE };
    }
    const first = argumentsOf(call)[0];
    if (fn.text() === 'hashlib.new' && first && kindOf(first) === 'string') {
      return { edits: [replace(first, `${first.text()[0]}sha256${first.text()[0]}`)], note: SHA256_NOTE };
    }
    // PyCryptodome (and PyCrypto): MD5.new() / SHA.new() / SHA1.new() → SHA256.new() of the same package.
    const crypto = /^(MD5|SHA1?)\.new$/.exec(fn.text());
    const from = crypto && new RegExp(`^\\s*from\\s+(Crypto(?:dome)?\\.Hash)\\s+import\\b[^\\n]*\\b${crypto[1]}\\b`, 'm').exec(text);
    if (from) {
      return {
        edits: [replace(fn, 'SHA256.new'), ...pythonImport(root!, text, `from ${from[1]} import SHA256`, 'SHA256')],
        note: SHA256_NOTE,
      };
    }
    return refuse(`${fn.text()} comes from a library whose SHA-256 needs another import; replace it by hand`);
  },
};

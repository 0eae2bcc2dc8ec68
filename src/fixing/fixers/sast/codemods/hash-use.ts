import type { SgNode } from '@ast-grep/napi';
import { fieldOf } from '../../shared/syntax.ts';
import { functionAround, statementOf } from './edit-kit.ts';

// A broken hash is swapped for SHA-256 only where its digest is neither a stored password (stored hashes
// would no longer match: they must migrate to a password hash) nor an identifier another system expects
// in that algorithm. Shared by each language's sha256-hash codemod.

const PASSWORD = /pass(word)?|passwd|pwd|credential/i;
const INTEROP = /gravatar|etag|cache|checksum|content[-_]?md5/i;

/** Why the hash computed by `call` must not change, or null; `passwordHashes` names the language's password hashes. */
export function whyHashMustStay(call: SgNode, passwordHashes: string): string | null {
  const statement = statementOf(call).text();
  const scope = functionAround(call);
  const scopeName = scope ? (fieldOf(scope, 'name')?.text() ?? '') : '';
  if (PASSWORD.test(statement) || PASSWORD.test(scopeName)) {
    return `the digest stores or checks a password: switch to a password hash (${passwordHashes}) and migrate the stored hashes at the next login`;
  }
  if (INTEROP.test(statement)) return 'the digest looks like an identifier another system expects in this algorithm (Gravatar, ETag, Content-MD5)';
  return null;
}

export const SHA256_NOTE = 'Hashed with SHA-256 instead of a broken algorithm; digests stored or compared elsewhere change with it.';

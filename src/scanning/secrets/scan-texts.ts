import crypto from 'node:crypto';
import type { RawFinding } from '../engine.ts';
import { hashParts, snippetOf } from '../match-identity.ts';
import { readSourceText } from '../source-files.ts';
import { detectSecrets, type SecretMatch } from './detector.ts';
import type { AddedText } from './history.ts';
import { maskSecret } from './text-checks.ts';

// The secrets engine's detection, run in a thread of the engine pool (see secrets-engine.ts): files of the
// tree, or text that commits added, in batches; each item's findings come back in the order given.

const CWE = ['CWE-798: Use of Hard-coded Credentials'];
const OWASP = ['A07:2021 - Identification and Authentication Failures'];
const REFERENCES = [
  'https://cwe.mitre.org/data/definitions/798.html',
  'https://owasp.org/Top10/A07_2021-Identification_and_Authentication_Failures/',
];


function toFinding(match: SecretMatch, filePath: string, text: string, key: Uint8Array, lineMap?: number[], commit?: string): RawFinding {
  const secretHash = crypto.createHmac('sha256', key).update(match.secret.replace(/\s+/g, '')).digest('hex');
  const fingerprint = crypto.createHash('sha256').update(`secrets.${match.rule.id}\0${filePath}\0${secretHash}`).digest('hex');
  const startLine = lineMap ? lineMap[match.startLine - 1] : match.startLine;
  const endLine = lineMap ? lineMap[match.endLine - 1] : match.endLine;
  const masked = maskSecret(match.secret);
  const where = commit
    ? `was committed to ${filePath} in ${commit.slice(0, 12)} and is still in the repository's history, though no longer in the scanned tree`
    : `is committed in ${filePath}`;
  return {
    checkId: `secrets.${match.rule.id}`,
    severity: match.rule.severity,
    category: 'secrets',
    title: match.rule.title,
    message: `${match.rule.title} (${masked}) ${where}. Revoke it, then remove it from the code and read it from a secret store or the environment.`,
    filePath,
    startLine,
    endLine,
    cwe: CWE,
    owasp: OWASP,
    references: REFERENCES,
    fingerprint,
    // The secret itself, wherever it moves in its file (and with the file when it is renamed).
    matchHash: hashParts(`secrets.${match.rule.id}`, secretHash),
    anchor: secretHash,
    snippet: snippetOf(text, match.startLine, match.endLine, [match.secret]),
    commitSha: commit ?? null,
    // location: 'tree', 'history' (with the introducing commit) or, set by the engine, 'both'.
    metadata: {
      masked_secret: masked,
      secret_hash: secretHash,
      rule: match.rule.id,
      source: commit ? 'history' : 'tree',
      location: commit ? 'history' : 'tree',
      ...(commit && { commit }),
    },
  };
}

/** The findings in each file of the tree (none for a file that is empty, too large or binary). */
export async function scanTreeFiles(dir: string, files: string[], key: Uint8Array): Promise<RawFinding[][]> {
  const found: RawFinding[][] = [];
  for (const file of files) {
    const source = await readSourceText(dir, file);
    found.push('skipped' in source ? [] : detectSecrets(source.text, file).map((match) => toFinding(match, file, source.text, key)));
  }
  return found;
}

/** The findings in text that commits added, each at its line in the file as of its commit. */
export function scanAddedTexts(added: AddedText[], key: Uint8Array): RawFinding[][] {
  return added.map((item) => detectSecrets(item.text, item.path).map((match) => toFinding(match, item.path, item.text, key, item.lines, item.commit)));
}

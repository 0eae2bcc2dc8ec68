import crypto from 'node:crypto';
import path from 'node:path';
import type { EngineInput, RawFinding, ScanEngine } from '../engine.ts';
import { detectSecrets, type SecretMatch } from './detector.ts';
import { addedTextInHistory } from './history.ts';
import { loadIgnore, readSourceText, skipReason, listFiles } from '../source-files.ts';
import { maskSecret } from './text-checks.ts';
import { hashParts, snippetOf } from '../match-identity.ts';

const CWE = ['CWE-798: Use of Hard-coded Credentials'];
const OWASP = ['A07:2021 - Identification and Authentication Failures'];
const REFERENCES = [
  'https://cwe.mitre.org/data/definitions/798.html',
  'https://owasp.org/Top10/A07_2021-Identification_and_Authentication_Failures/',
];

export interface SecretsEngineOptions {
  /** Commits of history to read below the scanned one; 0 reads only the tree. */
  historyDepth: number;
}

function toFinding(match: SecretMatch, filePath: string, text: string, key: Buffer, lineMap?: number[], commit?: string): RawFinding {
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
    metadata: { masked_secret: masked, secret_hash: secretHash, rule: match.rule.id, source: commit ? 'history' : 'tree' },
  };
}

/** Finds committed credentials in a checkout and, when a git directory is given, in its recent history. */
export class SecretsEngine implements ScanEngine {
  readonly scanType = 'secrets_scan' as const;
  private readonly options: SecretsEngineOptions;

  constructor(options: SecretsEngineOptions) {
    this.options = options;
  }

  async scan(input: EngineInput): Promise<RawFinding[]> {
    const ignored = await loadIgnore(input.dir);
    const found = new Map<string, RawFinding>();
    const files = await listFiles(input.dir, ignored);
    for (const [index, file] of files.entries()) {
      input.signal?.throwIfAborted();
      input.onProgress?.({ phase: 'scanning files', done: index, total: files.length });
      const source = await readSourceText(path.join(input.dir, file));
      if ('skipped' in source) continue;
      for (const match of detectSecrets(source.text)) {
        const finding = toFinding(match, file, source.text, input.fingerprintKey);
        // The same secret twice in a file is two findings, one per place.
        const key = `${finding.fingerprint}:${finding.startLine}`;
        if (!found.has(key)) found.set(key, finding);
      }
    }
    input.onProgress?.({ phase: 'scanning files', done: files.length, total: files.length });
    if (input.gitDir && input.commit && this.options.historyDepth > 0) {
      input.onProgress?.({ phase: 'reading git history' });
      const inTree = new Set([...found.values()].map((f) => f.fingerprint));
      for await (const added of addedTextInHistory(input.gitDir, input.commit, this.options.historyDepth, input.signal)) {
        if (skipReason(added.path) || ignored.ignores(added.path)) continue;
        for (const match of detectSecrets(added.text)) {
          const finding = toFinding(match, added.path, added.text, input.fingerprintKey, added.lines, added.commit);
          // Still present in the tree: the tree finding speaks for it. Log order is newest first, so the
          // last commit seen is the one that introduced the secret.
          if (!inTree.has(finding.fingerprint)) found.set(finding.fingerprint, finding);
        }
      }
    }
    return [...found.values()].sort((a, b) => a.filePath.localeCompare(b.filePath) || a.startLine - b.startLine);
  }
}

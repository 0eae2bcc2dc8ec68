import path from 'node:path';
import { codeParserFor } from './fixers/shared/syntax.ts';
import type { FixFinding } from './types.ts';

// Fixes of one repository form one set that applies together: a fix never claims what another live fix of
// the repository claims. Before a fix is stored, its findings are compared with the findings of the
// repository's other live fixes (cheap: by location); once a run has its diff, the diff is tried with the
// diffs of the other completed fixes at the same commit (see fix-conflicts.ts).

/** What fixing a finding changes: lines of a file, or one thing the fix changes once wherever it is (a package, a secret's value). */
export type Claim =
  | { kind: 'lines'; file: string; start: number; end: number }
  | { kind: 'once'; key: string; what: (fixId: string) => string };

/** A live fix of the repository and its findings. */
export interface ClaimingFix {
  fixId: string;
  findings: FixFinding[];
}

/** Why a finding cannot have a fix of its own: another fix already claims what fixing it changes. */
export interface Overlap {
  findingId: string;
  fixId: string;
  reason: string;
}

const normalizedPackage = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

/**
 * The code file whose committed credentials fixing this finding moves, if any: the credential fixer moves
 * every credential of a code file in one change (fixers/secrets/credential-plan.ts), so fixes of two
 * credentials of one file would make the same change. A secret only in the git history changes no file.
 */
function credentialFileOf(finding: FixFinding): string | undefined {
  if (finding.category !== 'secrets' || !finding.filePath || finding.metadata.source === 'history') return undefined;
  const file = path.posix.normalize(finding.filePath);
  return codeParserFor(file) ? file : undefined;
}

/** What fixing the finding changes, as far as its record tells before any fixer runs. */
export function claimsOf(finding: FixFinding): Claim[] {
  const { package: name, ecosystem, secret_hash: secretHash } = finding.metadata;
  if (typeof name === 'string' && typeof ecosystem === 'string') {
    // One bump per package and file: the fixer raises it once, to a version clear of every advisory it knows.
    return [
      {
        kind: 'once',
        key: `dependency\0${ecosystem}\0${normalizedPackage(name)}\0${finding.filePath}`,
        what: (fixId) => `fix ${fixId} already upgrades ${name} in ${finding.filePath}, to a version clear of every advisory known for it; one package is upgraded once, by one fix, which takes every open advisory of it in the file`,
      },
    ];
  }
  const claims: Claim[] = [];
  if (typeof secretHash === 'string' && secretHash) {
    claims.push({
      kind: 'once',
      key: `secret\0${secretHash}`,
      what: (fixId) => `fix ${fixId} already moves the same secret value; one value is moved by one fix, which takes every open finding of it`,
    });
  }
  const credentialFile = credentialFileOf(finding);
  if (credentialFile) {
    claims.push({
      kind: 'once',
      key: `credentials\0${credentialFile}`,
      what: (fixId) =>
        `fix ${fixId} already moves the committed credentials of ${credentialFile}, this one among them; every credential of a file moves in one change, by one fix, which takes every open finding of the file's credentials`,
    });
  }
  if (finding.filePath) {
    const start = finding.startLine ?? 1;
    const end = finding.startLine === null ? Number.MAX_SAFE_INTEGER : Math.max(start, finding.endLine ?? start);
    claims.push({ kind: 'lines', file: path.posix.normalize(finding.filePath), start, end });
  }
  return claims;
}

function describeLines(claim: Extract<Claim, { kind: 'lines' }>): string {
  if (claim.end === Number.MAX_SAFE_INTEGER) return claim.file;
  return claim.start === claim.end ? `line ${claim.start} of ${claim.file}` : `lines ${claim.start}–${claim.end} of ${claim.file}`;
}

/** The reason two claims cannot be fixed apart, or undefined when they are independent. */
function clash(mine: Claim, theirs: Claim, fixId: string): string | undefined {
  if (mine.kind === 'once' && theirs.kind === 'once') return mine.key === theirs.key ? mine.what(fixId) : undefined;
  if (mine.kind === 'lines' && theirs.kind === 'lines') {
    if (mine.file !== theirs.file || mine.start > theirs.end || theirs.start > mine.end) return undefined;
    return `fix ${fixId} already changes ${describeLines(theirs)}, where this finding is; a second fix of the same lines would conflict with it`;
  }
  return undefined;
}

/**
 * The first finding of a new fix whose change another live fix of the repository already claims, with
 * that fix and why; undefined when the new fix stands apart from all of them.
 */
export function firstOverlap(findings: FixFinding[], others: ClaimingFix[]): Overlap | undefined {
  for (const finding of findings) {
    const mine = claimsOf(finding);
    for (const other of others) {
      for (const theirs of other.findings.flatMap(claimsOf)) {
        for (const claim of mine) {
          const reason = clash(claim, theirs, other.fixId);
          if (reason) return { findingId: finding.id, fixId: other.fixId, reason };
        }
      }
    }
  }
  return undefined;
}

/**
 * Whether a finding is fixed by the same single change as one of `findings`: the same secret value, the
 * credentials of the same code file, or the same package of the same file.
 */
export function fixedByTheSameChange(candidate: FixFinding, findings: FixFinding[]): boolean {
  const keys = new Set(findings.flatMap(claimsOf).flatMap((claim) => (claim.kind === 'once' ? [claim.key] : [])));
  return claimsOf(candidate).some((claim) => claim.kind === 'once' && keys.has(claim.key));
}

/** What to look up for findings `fixedByTheSameChange` might accept. */
export interface SameChangeLookup {
  /** The hashes of the secret values the fix moves. */
  secretHashes: string[];
  /** The files whose other advisories of the package the fix upgrades. */
  dependencyFiles: string[];
  /** The code files whose committed credentials the fix moves. */
  credentialFiles: string[];
}

/** What to look up for findings `fixedByTheSameChange` might accept: the secrets' value hashes, the advisories' files, the credentials' code files. */
export function sameChangeLookup(findings: FixFinding[]): SameChangeLookup {
  const secretHashes = new Set<string>();
  const dependencyFiles = new Set<string>();
  const credentialFiles = new Set<string>();
  for (const finding of findings) {
    const { package: name, ecosystem, secret_hash: hash } = finding.metadata;
    if (typeof name === 'string' && typeof ecosystem === 'string') {
      dependencyFiles.add(finding.filePath);
      continue;
    }
    if (typeof hash === 'string' && hash) secretHashes.add(hash);
    const credentialFile = credentialFileOf(finding);
    if (credentialFile) credentialFiles.add(credentialFile);
  }
  return { secretHashes: [...secretHashes], dependencyFiles: [...dependencyFiles], credentialFiles: [...credentialFiles] };
}

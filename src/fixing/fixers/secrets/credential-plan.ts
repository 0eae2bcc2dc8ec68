import { loadRuleSet, type RuleSet } from '../../../scanning/sast/rule-set.ts';
import { readTreeText, walkTree } from '../../../scm/work-tree.ts';
import type { RepoFacts } from '../../repo-facts.ts';
import { codeParserFor } from '../shared/syntax.ts';
import { sastCredentialsIn } from './sast-credential-location.ts';
import type { LocatedSecret } from './secret-location.ts';

// The credentials in a repository's code the fixer would move, read once per run from the tree the run
// started from, so that fixes of one repository made one at a time agree with each other: a value found in
// several places takes one variable everywhere (the name it takes first), a fix of one credential of a file
// moves the file's other credentials too (fixes of one file make the same change instead of each adding
// the same import line), and only the fixes of the first credential's file list every variable in the
// shared environment template and compose files. Two fixes adding lines at the same place of a file could
// not both apply; one writer listing them all can.

export interface PlannedCredential {
  file: string;
  value: string;
  name: string;
  startLine: number;
  /** The detector rule it is located by (a keyword rule for a SAST credential rule's literal). */
  rule: LocatedSecret['rule'];
}

export interface CredentialPlan {
  /** In file and position order. */
  credentials: PlannedCredential[];
  /** The variable a value takes across the repository, if the plan saw it. */
  nameOf(value: string): string | undefined;
  /** The credential whose fix lists every planned variable in the shared files. */
  owner: PlannedCredential | undefined;
}

/** How the plan asks the fixer what it would do with one credential: the name it would give, or null if it would not move it. */
export type NameOf = (file: string, text: string, secret: LocatedSecret, others: LocatedSecret[]) => string | null;

/** What the plan reads in each file besides the credential rules: the secrets detector's matches. */
export type DetectIn = (text: string) => LocatedSecret[];

const MAX_FILES = 2_000;
const MAX_FILE_BYTES = 200 * 1024;
const MAX_CREDENTIALS = 500;
/** A file that holds none of these words has no credential a keyword rule of the SAST rules reports. */
const MAY_HOLD_CREDENTIAL = /secret|passw|passwd|pwd|token|key|auth|cred|bearer|session|cookie|signature|api/i;
/** Folders of others' code, builds, environments, and files served to browsers (whose credentials are never moved). */
const SKIPPED_FOLDERS = new Set(['node_modules', 'vendor', 'venv', '.venv', 'virtualenv', 'site-packages', '__pycache__', 'dist', 'build', '.tox', 'bower_components', '.next', 'coverage', 'static', 'public', 'assets', 'wwwroot']);

const PLANS = new WeakMap<RepoFacts, Promise<CredentialPlan>>();
let credentialRules: RuleSet | undefined;

/** The credential rules that report by default (an off rule's match is nobody's finding). */
function rules(): RuleSet {
  if (!credentialRules) {
    const all = loadRuleSet();
    credentialRules = { ...all, rules: all.rules.filter((r) => r.category === 'secrets' && !r.offByDefault) };
  }
  return credentialRules;
}

/** The plan of the tree the facts were read from, computed once per run. */
export function credentialPlan(dir: string, facts: RepoFacts, detect: DetectIn, nameOf: NameOf): Promise<CredentialPlan> {
  let plan = PLANS.get(facts);
  if (!plan) {
    plan = computePlan(dir, detect, nameOf);
    PLANS.set(facts, plan);
  }
  return plan;
}

async function computePlan(dir: string, detect: DetectIn, nameOf: NameOf): Promise<CredentialPlan> {
  const credentials: PlannedCredential[] = [];
  let files = 0;
  for await (const entry of walkTree(dir, '', { enter: (_rel, name) => !SKIPPED_FOLDERS.has(name) })) {
    if (entry.kind !== 'file' || credentials.length >= MAX_CREDENTIALS) continue;
    const parser = codeParserFor(entry.rel);
    if (!parser || /\.min\.js$/i.test(entry.rel) || ++files > MAX_FILES) continue;
    const text = await readTreeText(dir, entry.rel, MAX_FILE_BYTES);
    if (!text) continue;
    let found: LocatedSecret[];
    try {
      found = credentialsIn(entry.rel, text, detect);
    } catch {
      continue;
    }
    for (const secret of found) {
      let name: string | null;
      try {
        name = nameOf(entry.rel, text, secret, found);
      } catch {
        name = null;
      }
      if (name) credentials.push({ file: entry.rel, value: text.slice(secret.start, secret.end), name, startLine: secret.startLine, rule: secret.rule });
    }
  }
  const byValue = new Map<string, string>();
  for (const c of credentials) if (!byValue.has(c.value)) byValue.set(c.value, c.name);
  return { credentials, nameOf: (value) => byValue.get(value), owner: credentials[0] };
}

/** The credentials of a code file: the detector's, and the literals of the credential rules that report by default. */
export function credentialsIn(file: string, text: string, detect: DetectIn): LocatedSecret[] {
  const parser = codeParserFor(file);
  return merge(detect(text), parser && MAY_HOLD_CREDENTIAL.test(text) ? sastCredentialsIn(rules(), parser, text) : []);
}

/** Both lists' secrets in position order, a rule's literal left out where the detector found a secret inside it. */
function merge(detected: LocatedSecret[], fromRules: LocatedSecret[]): LocatedSecret[] {
  const overlaps = (a: LocatedSecret, b: LocatedSecret) => a.start < b.end && b.start < a.end;
  return [...detected, ...fromRules.filter((r) => !detected.some((d) => overlaps(d, r)))].sort((a, b) => a.start - b.start);
}

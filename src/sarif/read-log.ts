import crypto from 'node:crypto';
import path from 'node:path';
import type { Severity } from '../core/severity.ts';
import { severityRank } from '../core/severity.ts';
import type { RawFinding } from '../scanning/engine.ts';
import type { ScanType } from '../scanning/scan-type-names.ts';
import { maskCredentialLine, maskSecretsIn } from '../scanning/secrets/mask-text.ts';
import { maskSecret } from '../scanning/secrets/text-checks.ts';
import { repositoryPath, rootsOf, absolutePathOf } from './locations.ts';
import { SCAN_TYPE_OF_KIND, resultKind, toolKey, toolKindOf, type ToolKind } from './tools.ts';

// A SARIF 2.1.0 log of another tool, read into findings as Bulwark's engines report theirs. Pure: no
// database, no clock. The log's shape is checked first (SarifLogError: nothing may be imported); each result
// is then read on its own, and one that cannot be (no rule, no file, a path outside the repository) is
// skipped and counted in a warning instead of refusing the rest.

/** The log is not one SARIF 2.1.0 log of one tool; `loc` is where, from the log's root. */
export class SarifLogError extends Error {
  readonly loc: (string | number)[];

  constructor(loc: (string | number)[], message: string) {
    super(message);
    this.loc = loc;
  }
}

export interface SarifReadOptions {
  /** The import's id, kept in each finding's metadata. */
  importId: string;
  /** The checkout the tool ran in (absolute path or file: URI): absolute locations under it are read relative to it. */
  sourceRoot?: string | null;
  /** Overrides the runs' `automationDetails.id` category. */
  category?: string | null;
  /** The scan types findings may be filed under (the route family's); results of others are skipped. */
  scanTypes: readonly ScanType[];
  /** Results imported at most; beyond it the least severe are left out and the reading is partial. */
  maxResults: number;
}

/** A finding read from a result, with the contract scan type it is filed under. */
export interface SarifFinding extends RawFinding {
  scanType: ScanType;
}

export interface SarifReading {
  tool: { name: string; key: string; version: string | null };
  category: string | null;
  /** The key this tool's sightings are kept under in findings' `seen_by`. */
  sighter: string;
  /** Results the log holds. */
  results: number;
  findings: SarifFinding[];
  skipped: number;
  warnings: string[];
  /** Whether the findings are everything the tool reported on the whole repository: only then does an import resolve what it no longer sees. */
  complete: boolean;
}

export const MAX_MESSAGE_CHARS = 4000;
const MAX_TITLE_CHARS = 300;
const MAX_RULE_ID_CHARS = 200;
const MAX_SNIPPET_LINES = 12;
const MAX_SNIPPET_CHARS = 2000;
const MAX_LINE = 10_000_000;
const MAX_RUNS = 100;
const MAX_RELATED_LOCATIONS = 10;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const objectAt = (value: unknown, key: string): Json | undefined => (isObject(value) && isObject(value[key]) ? (value[key] as Json) : undefined);
const arrayAt = (value: unknown, key: string): unknown[] => (isObject(value) && Array.isArray(value[key]) ? (value[key] as unknown[]) : []);
const stringAt = (value: unknown, key: string): string | undefined =>
  isObject(value) && typeof value[key] === 'string' && (value[key] as string).trim() ? (value[key] as string) : undefined;
const sha256 = (...parts: string[]) => crypto.createHash('sha256').update(parts.join('\0')).digest('hex');
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

function cut(text: string, max: number): { text: string; cut: boolean } {
  return text.length <= max ? { text, cut: false } : { text: `${text.slice(0, max - 1)}…`, cut: true };
}

/** Checks the log's shape; returns its runs. */
function runsOf(log: unknown): Json[] {
  if (!isObject(log)) throw new SarifLogError([], 'Value error, not a SARIF log: expected a JSON object');
  if (log.version !== '2.1.0') {
    throw new SarifLogError(['version'], `Value error, only SARIF 2.1.0 logs are read: "version" must be "2.1.0"${typeof log.version === 'string' ? `, not "${cut(log.version, 20).text}"` : ''}`);
  }
  if (!Array.isArray(log.runs) || log.runs.length === 0) throw new SarifLogError(['runs'], 'Value error, a SARIF log needs "runs": a list of at least one run');
  if (log.runs.length > MAX_RUNS) throw new SarifLogError(['runs'], `Value error, at most ${MAX_RUNS} runs are read from one log`);
  const keys = new Set<string>();
  for (const [i, run] of log.runs.entries()) {
    if (!isObject(run)) throw new SarifLogError(['runs', i], 'Value error, each run must be a JSON object');
    const name = stringAt(objectAt(objectAt(run, 'tool'), 'driver'), 'name');
    if (!name) throw new SarifLogError(['runs', i, 'tool', 'driver', 'name'], 'Value error, each run must name its tool in tool.driver.name');
    if (name.length > 200) throw new SarifLogError(['runs', i, 'tool', 'driver', 'name'], 'Value error, tool.driver.name is longer than 200 characters');
    keys.add(toolKey(name));
    if (keys.size > 1) {
      throw new SarifLogError(['runs', i, 'tool', 'driver', 'name'], `Value error, one import holds the runs of one tool; this log mixes ${[...keys].join(' and ')}: import each tool's runs apart`);
    }
    if (run.results !== undefined && !Array.isArray(run.results)) throw new SarifLogError(['runs', i, 'results'], 'Value error, "results" must be a list');
  }
  return log.runs as Json[];
}

/**
 * GitHub code scanning's category: the part of automationDetails.id up to its last `/` (the rest names the
 * run). Without a `/` the id names only the run.
 */
function categoryOf(run: Json): string | null {
  const id = stringAt(objectAt(run, 'automationDetails'), 'id');
  if (!id || !id.includes('/')) return null;
  return id.slice(0, id.lastIndexOf('/'));
}

const normalCategory = (category: string | null | undefined): string | null => {
  const key = (category ?? '').trim().replace(/^\/+|\/+$/g, '').replace(/[^A-Za-z0-9._:/=-]+/g, '-').slice(0, 100);
  return key || null;
};

/** Every rule a run defines, found the ways a result may name one. */
class RuleIndex {
  readonly #run: Json;
  #byId?: Map<string, Json>;

  constructor(run: Json) {
    this.#run = run;
  }

  #components(): unknown[][] {
    const tool = objectAt(this.#run, 'tool');
    return [arrayAt(objectAt(tool, 'driver'), 'rules'), ...arrayAt(tool, 'extensions').map((e) => arrayAt(e, 'rules'))];
  }

  #lookup(id: string): Json | undefined {
    if (!this.#byId) {
      this.#byId = new Map();
      for (const rules of this.#components()) {
        for (const rule of rules) {
          const ruleId = stringAt(rule, 'id');
          if (ruleId && !this.#byId.has(ruleId)) this.#byId.set(ruleId, rule as Json);
        }
      }
    }
    return this.#byId.get(id);
  }

  /** The rule a result names: by its reference's component and index, its ruleIndex, or its id. */
  of(result: Json, ruleId: string | undefined): Json | undefined {
    const reference = objectAt(result, 'rule');
    const componentIndex = objectAt(reference, 'toolComponent')?.index;
    const index = typeof reference?.index === 'number' ? reference.index : result.ruleIndex;
    const tool = objectAt(this.#run, 'tool');
    const rules =
      typeof componentIndex === 'number' ? arrayAt(arrayAt(tool, 'extensions')[componentIndex], 'rules') : arrayAt(objectAt(tool, 'driver'), 'rules');
    const byIndex = typeof index === 'number' ? rules[index] : undefined;
    if (isObject(byIndex) && (!ruleId || stringAt(byIndex, 'id') === ruleId)) return byIndex;
    return ruleId ? this.#lookup(ruleId) : undefined;
  }
}

function tagsOf(...holders: (Json | undefined)[]): string[] {
  return holders.flatMap((holder) => arrayAt(objectAt(holder, 'properties'), 'tags')).filter((t): t is string => typeof t === 'string');
}

/** GitHub code scanning's reading of security-severity: 9.0 and above critical, 7.0 high, 4.0 medium, below low. */
export function severityOfScore(score: number): Severity {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  return 'low';
}

const LEVEL_SEVERITY: Record<string, Severity> = { error: 'high', warning: 'medium', note: 'low', none: 'low' };

function securitySeverity(...holders: (Json | undefined)[]): number | undefined {
  for (const holder of holders) {
    const value = objectAt(holder, 'properties')?.['security-severity'];
    const score = typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN;
    if (Number.isFinite(score) && score >= 0 && score <= 10) return score;
  }
  return undefined;
}

/** The result's level: its own, else its rule's default, else SARIF's default `warning`. */
function levelOf(result: Json, rule: Json | undefined): string {
  const level = stringAt(result, 'level') ?? stringAt(objectAt(rule, 'defaultConfiguration'), 'level') ?? 'warning';
  return level in LEVEL_SEVERITY ? level : 'warning';
}

/** CWE numbers as `CWE-n` (keeping a name that follows, as in `CWE-89: Improper Neutralization…`), from tags and `cwe` properties. */
function cwesOf(tags: string[], ...holders: (Json | undefined)[]): string[] {
  const texts = [...tags];
  for (const holder of holders) {
    const cwe = objectAt(holder, 'properties')?.cwe;
    if (typeof cwe === 'string') texts.push(cwe);
    if (Array.isArray(cwe)) texts.push(...cwe.filter((c): c is string => typeof c === 'string'));
  }
  const byNumber = new Map<string, string>();
  for (const text of texts) {
    const match = /^(?:external\/cwe\/)?cwe[-_ ]?0*(\d{1,5})\b(.*)$/i.exec(text.trim());
    if (!match) continue;
    const rest = match[2].trim();
    const named = rest.startsWith(':') ? `CWE-${match[1]}${cut(oneLine(rest), 200).text}` : `CWE-${match[1]}`;
    if (!byNumber.has(match[1]) || named.length > byNumber.get(match[1])!.length) byNumber.set(match[1], named);
  }
  return [...byNumber.values()].slice(0, 10);
}

function owaspOf(tags: string[]): string[] {
  return [...new Set(tags.flatMap((t) => /^owasp[-: ]*(a\d{1,2}:\d{4}\b.*)$/i.exec(t.trim())?.[1] ?? []))].map((t) => cut(oneLine(t), 200).text).slice(0, 10);
}

const httpUrl = (value: string | undefined): string | null => (value && /^https?:\/\/\S+$/i.test(value) && value.length <= 2000 ? value : null);

/** A message's text: its own, or the rule's message string it names with the arguments put in; embedded links reduced to their text. */
function messageText(message: Json | undefined, rule: Json | undefined): string | undefined {
  let text = stringAt(message, 'text') ?? stringAt(message, 'markdown');
  const id = stringAt(message, 'id');
  if (!text && id) {
    const template = stringAt(objectAt(objectAt(rule, 'messageStrings'), id), 'text');
    const args = arrayAt(message, 'arguments').map((a) => (typeof a === 'string' ? a : String(a)));
    text = template?.replace(/\{(\d+)\}/g, (whole, n: string) => args[Number(n)] ?? whole);
  }
  // SARIF's embedded links, [text](id), point at related locations: the text reads on its own.
  return text?.replace(/\[([^\]]*)\]\((\d+|[a-z]+:[^)]*)\)/gi, '$1');
}

/** Fingerprints as the tool gave them: string values only, bounded. */
function fingerprintsOf(value: unknown): Record<string, string> | undefined {
  if (!isObject(value)) return undefined;
  const entries = Object.entries(value)
    .filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].trim() !== '' && e[0].length <= 100)
    .slice(0, 10)
    .map(([k, v]) => [k, v.slice(0, 200)] as const);
  return entries.length ? Object.fromEntries(entries) : undefined;
}

const canonical = (fingerprints: Record<string, string>) => JSON.stringify(Object.entries(fingerprints).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

function positiveLine(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? Math.min(value, MAX_LINE) : undefined;
}

/** A snippet's text, a few lines at most, with credentials masked; a secret detector's is masked whole. */
function snippetOf(region: Json | undefined, contextRegion: Json | undefined, kind: ToolKind): string | null {
  const raw = stringAt(objectAt(region, 'snippet'), 'text') ?? stringAt(objectAt(contextRegion, 'snippet'), 'text');
  if (!raw) return null;
  const lines = raw.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n').slice(0, MAX_SNIPPET_LINES);
  const text = cut(lines.join('\n'), MAX_SNIPPET_CHARS).text;
  if (kind !== 'secrets') return maskSecretsIn(text);
  // A secret detector's snippet is often the secret alone (gitleaks): nothing of it may be stored in clear.
  if (!/\s/.test(text.trim())) return maskSecret(text.trim());
  return text.split('\n').map(maskCredentialLine).join('\n');
}

/** `Package: x`, `Installed Version: y`, `Fixed Version: z` lines, as dependency scanners (Trivy) write their messages. */
function packageFacts(message: string, filePath: string): Record<string, string> {
  const field = (name: string) => new RegExp(`^${name}:[ \\t]*(\\S[^\\n]*)$`, 'mi').exec(message)?.[1]?.trim();
  const facts: Record<string, string> = {};
  const name = field('Package');
  const installed = field('Installed Version');
  const fixed = field('Fixed Version');
  if (name) facts.package = name.slice(0, 200);
  if (installed) facts.installed_version = installed.slice(0, 100);
  // Trivy lists one fixed version per release line (`2.3.2, 2.2.5`): only a single one is a version to move to.
  if (fixed && !fixed.includes(',')) facts.fixed_version = fixed.slice(0, 100);
  else if (fixed) facts.fixed_versions = fixed.slice(0, 300);
  const ecosystem = ECOSYSTEM_OF_FILE[path.posix.basename(filePath)];
  if (name && ecosystem) facts.ecosystem = ecosystem;
  return facts;
}

const ECOSYSTEM_OF_FILE: Record<string, string> = {
  'package-lock.json': 'npm', 'npm-shrinkwrap.json': 'npm', 'yarn.lock': 'npm', 'pnpm-lock.yaml': 'npm', 'package.json': 'npm',
  'requirements.txt': 'PyPI', 'Pipfile.lock': 'PyPI', 'poetry.lock': 'PyPI', 'uv.lock': 'PyPI', 'pyproject.toml': 'PyPI',
  'go.mod': 'Go', 'go.sum': 'Go', 'Cargo.lock': 'crates.io', 'Gemfile.lock': 'RubyGems', 'composer.lock': 'Packagist',
  'pom.xml': 'Maven', 'gradle.lockfile': 'Maven', 'packages.lock.json': 'NuGet', 'pubspec.lock': 'Pub',
};

/** Why results were left out, counted per reason, with the first example. */
class Skips {
  readonly #reasons = new Map<string, { count: number; example?: string }>();
  count = 0;

  add(reason: string, example?: string): void {
    this.count++;
    const entry = this.#reasons.get(reason);
    if (entry) entry.count++;
    else this.#reasons.set(reason, { count: 1, example: example === undefined ? undefined : cut(oneLine(maskSecretsIn(example)), 120).text });
  }

  warnings(): string[] {
    return [...this.#reasons].map(
      ([reason, { count, example }]) => `${count} result${count === 1 ? '' : 's'} skipped: ${reason}${example ? ` (first: ${example})` : ''}`,
    );
  }
}

/** A result read as far as choosing which to keep needs: the rest (message, snippet, hashes) is read only for those kept. */
interface Candidate {
  run: Json;
  result: Json;
  rule: Json | undefined;
  ruleId: string;
  kind: ToolKind;
  severity: Severity;
  score: number | undefined;
  level: string;
  filePath: string;
  startLine: number;
  endLine: number;
  region: Json | undefined;
  contextRegion: Json | undefined;
}

const NOT_PROBLEMS = new Set(['pass', 'notApplicable', 'informational']);

/** Whether a result is one the tool suppressed itself (an accepted or unreviewed suppression). */
const suppressed = (result: Json) => arrayAt(result, 'suppressions').some((s) => isObject(s) && (s.status === undefined || s.status === 'accepted'));

/**
 * Reads a SARIF 2.1.0 log (see the top of this file). Throws SarifLogError when the log is not one of one
 * tool; otherwise every result becomes a finding or a skip, never an error.
 */
export function readSarifLog(log: unknown, options: SarifReadOptions): SarifReading {
  const runs = runsOf(log);
  const driver = objectAt(objectAt(runs[0], 'tool'), 'driver')!;
  const name = oneLine(stringAt(driver, 'name')!);
  const key = toolKey(name);
  const version = stringAt(driver, 'semanticVersion') ?? stringAt(driver, 'version') ?? null;
  const category = normalCategory(options.category ?? categoryOf(runs[0]));
  const sighter = `sarif:${key}${category ? `#${category}` : ''}`;
  const toolKind = toolKindOf(key);
  const callerRoot = options.sourceRoot ? absolutePathOf(options.sourceRoot.trim()) : null;
  const warnings: string[] = [];
  const skips = new Skips();
  let complete = true;
  let total = 0;
  const candidates: Candidate[] = [];

  for (const run of runs) {
    if (!Array.isArray(run.results)) {
      complete = false;
      warnings.push('partial result: a run holds no "results" list (the tool did not say what it found), so no finding was resolved');
      continue;
    }
    if (arrayAt(run, 'invocations').some((i) => isObject(i) && i.executionSuccessful === false)) {
      complete = false;
      warnings.push('partial result: the tool reported that its run did not succeed, so no finding was resolved');
    }
    const rules = new RuleIndex(run);
    const bases = objectAt(run, 'originalUriBaseIds') ?? {};
    const roots = [...(callerRoot ? [callerRoot] : []), ...rootsOf(run)];
    const artifacts = arrayAt(run, 'artifacts');
    for (const result of run.results as unknown[]) {
      total++;
      if (!isObject(result)) {
        skips.add('not a JSON object');
        continue;
      }
      const candidate = candidateOf(result, { run, rules, bases, roots, artifacts, toolKind, scanTypes: options.scanTypes, skips });
      if (candidate) candidates.push(candidate);
    }
  }

  let kept = candidates;
  if (candidates.length > options.maxResults) {
    complete = false;
    const order = candidates.map((c, index) => ({ c, index })).sort((a, b) => severityRank(a.c.severity) - severityRank(b.c.severity) || a.index - b.index);
    const chosen = new Set(order.slice(0, options.maxResults).map(({ c }) => c));
    kept = candidates.filter((c) => chosen.has(c));
    warnings.push(
      `partial result: the log holds ${candidates.length} results to import and at most ${options.maxResults} are imported at once, so the ${candidates.length - options.maxResults} least severe were left out and no finding was resolved`,
    );
  }

  let messagesCut = 0;
  const findings = kept.map((c) => {
    const finding = findingOf(c, { key, name, version, category, sighter, importId: options.importId });
    if (finding.cut) messagesCut++;
    return finding.finding;
  });
  if (messagesCut) warnings.push(`${messagesCut} message${messagesCut === 1 ? '' : 's'} longer than ${MAX_MESSAGE_CHARS} characters ${messagesCut === 1 ? 'was' : 'were'} cut`);
  return {
    tool: { name, key, version },
    category,
    sighter,
    results: total,
    findings,
    skipped: skips.count + (candidates.length - kept.length),
    warnings: [...warnings, ...skips.warnings()],
    complete,
  };
}

interface RunContext {
  run: Json;
  rules: RuleIndex;
  bases: Json;
  roots: string[];
  artifacts: unknown[];
  toolKind: ToolKind;
  scanTypes: readonly ScanType[];
  skips: Skips;
}

function candidateOf(result: Json, context: RunContext): Candidate | undefined {
  const { skips } = context;
  if (typeof result.kind === 'string' && NOT_PROBLEMS.has(result.kind)) {
    skips.add(`not a problem (kind "${result.kind}")`);
    return undefined;
  }
  if (result.baselineState === 'absent') {
    skips.add('marked absent (the baseline holds it, this run does not)');
    return undefined;
  }
  if (suppressed(result)) {
    skips.add('suppressed in the tool\'s output');
    return undefined;
  }
  const namedId = stringAt(result, 'ruleId') ?? stringAt(objectAt(result, 'rule'), 'id');
  const rule = context.rules.of(result, namedId?.trim());
  const ruleId = (namedId ?? stringAt(rule, 'id'))?.trim();
  if (!ruleId) {
    skips.add('no rule id (ruleId or rule.id)');
    return undefined;
  }
  // Rule ids are shown and filtered on: control characters and very long ones are refused.
  if (ruleId.length > MAX_RULE_ID_CHARS || /[\u0000-\u001f\u007f]/.test(ruleId)) {
    skips.add(`a rule id longer than ${MAX_RULE_ID_CHARS} characters or holding control characters`, ruleId.slice(0, 60));
    return undefined;
  }
  const tags = tagsOf(rule, result);
  const kind = resultKind(context.toolKind, tags);
  const scanType = SCAN_TYPE_OF_KIND[kind];
  if (!context.scanTypes.includes(scanType)) {
    skips.add(`${scanType} findings are not taken here (import this log through the repositories route)`, ruleId);
    return undefined;
  }
  const location = arrayAt(result, 'locations')[0];
  const physical = objectAt(location, 'physicalLocation');
  if (!physical) {
    skips.add('no file location (locations[0].physicalLocation)', ruleId);
    return undefined;
  }
  let artifact = objectAt(physical, 'artifactLocation');
  if (artifact && typeof artifact.uri !== 'string' && typeof artifact.index === 'number') {
    artifact = { ...objectAt(context.artifacts[artifact.index], 'location'), ...artifact };
  }
  const where = repositoryPath(artifact, context.bases, context.roots);
  if ('refused' in where) {
    skips.add(where.refused, typeof artifact?.uri === 'string' ? artifact.uri : undefined);
    return undefined;
  }
  const region = objectAt(physical, 'region');
  const startLine = positiveLine(region?.startLine) ?? 1;
  const endLine = Math.max(startLine, positiveLine(region?.endLine) ?? startLine);
  const score = securitySeverity(result, rule);
  const level = levelOf(result, rule);
  return {
    run: context.run,
    result,
    rule,
    ruleId,
    kind,
    severity: score !== undefined ? severityOfScore(score) : LEVEL_SEVERITY[level],
    score,
    level,
    filePath: where.path,
    startLine,
    endLine,
    region,
    contextRegion: objectAt(physical, 'contextRegion'),
  };
}

const CATEGORY_OF_KIND: Record<ToolKind, string> = { code: 'sast', secrets: 'secrets', dependencies: 'dependency' };

function findingOf(
  c: Candidate,
  tool: { key: string; name: string; version: string | null; category: string | null; sighter: string; importId: string },
): { finding: SarifFinding; cut: boolean } {
  const { result, rule } = c;
  const text = messageText(objectAt(result, 'message'), rule) ?? stringAt(objectAt(rule, 'shortDescription'), 'text') ?? c.ruleId;
  const message = cut(maskSecretsIn(text.trim() || c.ruleId), MAX_MESSAGE_CHARS);
  const title = cut(oneLine(stringAt(objectAt(rule, 'shortDescription'), 'text') ?? stringAt(rule, 'name') ?? c.ruleId), MAX_TITLE_CHARS).text;
  const tags = tagsOf(rule, result);
  const snippet = snippetOf(c.region, c.contextRegion, c.kind);
  const fingerprints = fingerprintsOf(result.fingerprints);
  const partialFingerprints = fingerprintsOf(result.partialFingerprints);
  const snippetKey = (snippet ?? '').replace(/\s+/g, '');
  const messageKey = oneLine(message.text);
  // What identifies the match, most stable first: the tool's own fingerprints, its partial ones with the
  // code, the code alone, the message where the tool gave no code.
  const basis = fingerprints
    ? `f:${canonical(fingerprints)}`
    : partialFingerprints
      ? `p:${canonical(partialFingerprints)}\0${snippetKey}`
      : snippetKey
        ? `s:${snippetKey}`
        : `m:${messageKey}\0${c.startLine}`;
  const helpUri = httpUrl(stringAt(rule, 'helpUri'));
  const checkId = `${tool.key}/${c.ruleId}`;
  const related = arrayAt(result, 'relatedLocations')
    .slice(0, MAX_RELATED_LOCATIONS)
    .flatMap((r) => {
      const physical = objectAt(r, 'physicalLocation');
      const where = repositoryPath(objectAt(physical, 'artifactLocation'), objectAt(c.run, 'originalUriBaseIds') ?? {}, rootsOf(c.run));
      if ('refused' in where) return [];
      const note = stringAt(objectAt(r, 'message'), 'text');
      return [{ path: where.path, start_line: positiveLine(objectAt(physical, 'region')?.startLine) ?? null, ...(note ? { message: cut(maskSecretsIn(note), 300).text } : {}) }];
    });
  const properties = objectAt(rule, 'properties');
  const cvssScore = Number(properties?.cvssv3_baseScore);
  const cvssVector = typeof properties?.cvssv3_vector === 'string' ? properties.cvssv3_vector.slice(0, 200) : '';
  const finding: SarifFinding = {
    scanType: SCAN_TYPE_OF_KIND[c.kind],
    checkId,
    severity: c.severity,
    category: CATEGORY_OF_KIND[c.kind],
    title,
    message: message.text,
    filePath: c.filePath,
    startLine: c.startLine,
    endLine: c.endLine,
    cwe: cwesOf(tags, rule, result),
    owasp: owaspOf(tags),
    references: helpUri ? [helpUri] : [],
    fingerprint: sha256('sarif', tool.sighter, c.ruleId, c.filePath, basis),
    matchHash: sha256('sarif', tool.key, c.ruleId, basis),
    anchor: sha256('sarif', tool.key, c.ruleId, messageKey),
    snippet,
    commitSha: null,
    metadata: {
      sarif: {
        sighting: tool.sighter,
        import_id: tool.importId,
        rule_id: c.ruleId,
        level: c.level,
        ...(c.score !== undefined ? { security_severity: c.score } : {}),
        ...(tool.version ? { tool_version: tool.version } : {}),
        ...(tool.category ? { category: tool.category } : {}),
        ...(fingerprints ? { fingerprints } : {}),
        ...(partialFingerprints ? { partial_fingerprints: partialFingerprints } : {}),
        ...(related.length ? { related_locations: related } : {}),
      },
      tool: tool.name,
      ...(c.kind === 'dependencies' ? packageFacts(text, c.filePath) : {}),
    },
    sourceUrl: c.kind === 'dependencies' ? helpUri : null,
    cvss:
      c.kind === 'dependencies' && Number.isFinite(cvssScore) && cvssScore > 0 && cvssVector
        ? { baseScore: cvssScore, vector: cvssVector, severity: severityOfScore(cvssScore) }
        : null,
  };
  return { finding, cut: message.cut };
}

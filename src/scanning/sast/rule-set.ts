import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import jsYaml from 'js-yaml';
import { sastRuleDirsFrom } from '../../config.ts';
import { RULE_LANGUAGES, type RuleLanguage } from '../../languages/index.ts';
import { SEVERITIES, type Severity } from '../../core/severity.ts';

// SAST rules are YAML data: one file per rule family under rules/sast/<language>/, each rule with its own
// vulnerable and safe test snippets. `_taint.yml` in a language folder names that language's sources,
// sanitizers and request handlers, shared by all its taint rules.

/** An ast-grep rule object (pattern, kind, inside, has, any, all, not, …); a plain string is a pattern. */
export type AstRule = Record<string, unknown>;

export interface Sink {
  rule: AstRule;
  /** The metavariable whose value must be tainted; the whole match when absent. */
  focus?: string;
}

export interface SastRule {
  id: string;
  language: RuleLanguage;
  mode: 'pattern' | 'taint' | 'regex';
  message: string;
  severity: Severity;
  confidence: 'high' | 'medium' | 'low';
  category: string;
  cwe: string[];
  owasp: string[];
  references: string[];
  fix?: string;
  /** Pattern mode: what to match. */
  rule?: AstRule;
  /** Regex mode (templates and other text): what to match, multi-line. */
  regex?: RegExp;
  constraints?: Record<string, AstRule>;
  /** Taint mode: where tainted data must not arrive, and what cleans it on the way. */
  sinks: Sink[];
  sanitizers: AstRule[];
  sources: AstRule[];
  tests: { vulnerable: string[]; safe: string[] };
  file: string;
  /** `default: off`: reported only when BULWARK_CHECKS_ENABLED names the rule. */
  offByDefault?: boolean;
}

export interface TaintProfile {
  language: RuleLanguage;
  sources: AstRule[];
  sanitizers: AstRule[];
  /** Decorator texts (regular expressions) that make a function a request handler. */
  handlerDecorators: RegExp[];
  /** Calls whose function arguments are request handlers (app.get('/x', (req, res) => …)). */
  handlerRegistrations: AstRule[];
  /** Parameter names that hold the request or response objects, not user data themselves. */
  frameworkParams: string[];
  /**
   * Treat the parameters of public functions (no leading underscore) as untrusted, since their callers
   * may live in other files this per-file analysis cannot see.
   */
  untrustedParams: boolean;
  /**
   * With untrustedParams: do not report a public function that only hands one of its own parameters, as is,
   * to a sink (a query(text) or readFile(path) wrapper); callers that pass request data to it still are.
   */
  ignoreParamPassThrough: boolean;
  /** Calls whose result starts from their first argument (path.join(dir, "x")), for ignoreParamPassThrough. */
  passThroughCalls: RegExp[];
}

export interface RuleSet {
  rules: SastRule[];
  profiles: Partial<Record<RuleLanguage, TaintProfile>>;
  /** A hash of every rule file read, so results computed under other rules are told apart. */
  version: string;
}

export const BUILTIN_RULES_DIR = fileURLToPath(new URL('../../../rules/sast', import.meta.url));

class RuleError extends Error {}

const asRule = (value: unknown, where: string): AstRule => {
  if (typeof value === 'string') return { pattern: value };
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as AstRule;
  throw new RuleError(`${where}: expected a pattern string or an ast-grep rule object`);
};

const list = (value: unknown): unknown[] => (value === undefined || value === null ? [] : Array.isArray(value) ? value : [value]);

const strings = (value: unknown, where: string): string[] =>
  list(value).map((v) => {
    if (typeof v !== 'string') throw new RuleError(`${where}: expected strings`);
    return v;
  });

function parseSink(value: unknown, where: string): Sink {
  const entry = asRule(value, where);
  const { focus, rule, ...rest } = entry as { focus?: unknown; rule?: unknown };
  const pattern = (rule ?? rest) as { pattern?: unknown };
  // A pattern with commas written unquoted in a YAML flow mapping splits into stray keys; say so.
  if (typeof pattern.pattern === 'string' && Object.keys(rest).some((k) => k !== 'pattern' && k.includes('$'))) {
    throw new RuleError(`${where}: quote the sink pattern "${pattern.pattern}…"; a comma in a { } mapping splits it`);
  }
  if (focus !== undefined && typeof focus !== 'string') throw new RuleError(`${where}: focus must name a metavariable`);
  return { rule: rule ? asRule(rule, where) : rest, focus: focus as string | undefined };
}

function parseRule(raw: Record<string, unknown>, language: RuleLanguage, file: string): SastRule {
  const id = raw.id;
  if (typeof id !== 'string' || !/^[a-z0-9][a-z0-9._-]+$/.test(id)) throw new RuleError(`${file}: a rule needs an id like python.flask.sqli.name`);
  const where = `${file} (${id})`;
  const mode = raw.mode ?? (raw.sinks ? 'taint' : raw.regex ? 'regex' : 'pattern');
  if (mode !== 'pattern' && mode !== 'taint' && mode !== 'regex') throw new RuleError(`${where}: mode must be pattern, taint or regex`);
  const severity = raw.severity as Severity;
  if (!SEVERITIES.includes(severity)) throw new RuleError(`${where}: severity must be one of ${SEVERITIES.join(', ')}`);
  if (typeof raw.message !== 'string') throw new RuleError(`${where}: message is required`);
  const cwe = strings(raw.cwe, where);
  if (!cwe.length || !cwe.every((c) => /^CWE-\d+/.test(c))) throw new RuleError(`${where}: cwe must list CWE-<n> entries`);
  const tests = (raw.tests ?? {}) as { vulnerable?: unknown; safe?: unknown };
  const rule: SastRule = {
    id,
    language,
    mode,
    message: raw.message.trim(),
    severity,
    confidence: (raw.confidence as SastRule['confidence']) ?? 'medium',
    category: typeof raw.category === 'string' ? raw.category : 'security',
    cwe,
    owasp: strings(raw.owasp, where),
    references: strings(raw.references, where),
    fix: typeof raw.fix === 'string' ? raw.fix : undefined,
    rule: raw.rule !== undefined ? asRule(raw.rule, where) : undefined,
    regex: typeof raw.regex === 'string' ? new RegExp(raw.regex, 'gi') : undefined,
    constraints: raw.constraints as Record<string, AstRule> | undefined,
    sinks: list(raw.sinks).map((s) => parseSink(s, where)),
    sanitizers: list(raw.sanitizers).map((s) => asRule(s, where)),
    sources: list(raw.sources).map((s) => asRule(s, where)),
    tests: { vulnerable: strings(tests.vulnerable, where), safe: strings(tests.safe, where) },
    file,
    offByDefault: raw.default === 'off',
  };
  if (mode === 'pattern' && !rule.rule) throw new RuleError(`${where}: a pattern rule needs a rule`);
  if (mode === 'taint' && !rule.sinks.length) throw new RuleError(`${where}: a taint rule needs sinks`);
  if (mode === 'regex' && !rule.regex) throw new RuleError(`${where}: a regex rule needs a regex`);
  if (!rule.tests.vulnerable.length || !rule.tests.safe.length) {
    throw new RuleError(`${where}: every rule needs vulnerable and safe test snippets`);
  }
  return rule;
}

function parseProfile(raw: Record<string, unknown>, language: RuleLanguage, file: string): TaintProfile {
  return {
    language,
    sources: list(raw.sources).map((s) => asRule(s, file)),
    sanitizers: list(raw.sanitizers).map((s) => asRule(s, file)),
    handlerDecorators: strings(raw['handler-decorators'], file).map((r) => new RegExp(r)),
    handlerRegistrations: list(raw['handler-registrations']).map((s) => asRule(s, file)),
    frameworkParams: strings(raw['framework-params'], file),
    untrustedParams: raw['untrusted-params'] === true,
    ignoreParamPassThrough: raw['ignore-param-pass-through'] === true,
    passThroughCalls: strings(raw['pass-through-calls'], file).map((r) => new RegExp(r)),
  };
}

/**
 * js-yaml: the same documents as the `yaml` package reads, parsed four to seven times faster, which is
 * most of the start of a small or unchanged scan.
 */
function parseYaml(text: string, shown: string): Record<string, unknown> {
  try {
    return jsYaml.load(text) as Record<string, unknown>;
  } catch (error) {
    throw new RuleError(`${shown}: not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
}

function yamlFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

const loadedRuleSets = new Map<string, RuleSet>();

/**
 * The rule set every scan, fixer and verification uses: the built-in rules plus the operator's folders
 * (BULWARK_SAST_RULES_DIRS unless given), read once per process for each list of folders. A malformed rule
 * file stops the load with a message naming it.
 */
export function loadRuleSet(operatorDirs: readonly string[] = sastRuleDirsFrom()): RuleSet {
  const dirs = [...new Set([BUILTIN_RULES_DIR, ...operatorDirs.map((dir) => path.resolve(dir))])];
  const key = dirs.join('\0');
  let set = loadedRuleSets.get(key);
  if (!set) {
    set = readRuleFolders(dirs);
    loadedRuleSets.set(key, set);
  }
  return set;
}

function readRuleFolders(dirs: string[]): RuleSet {
  const set: RuleSet = { rules: [], profiles: {}, version: '' };
  const ids = new Set<string>();
  const version = crypto.createHash('sha256');
  for (const dir of dirs) {
    for (const file of yamlFiles(dir)) {
      const text = fs.readFileSync(file, 'utf8');
      version.update(`${file}\0${text}\0`);
      const shown = path.relative(path.dirname(dir), file);
      const doc = parseYaml(text, shown);
      const language = doc?.language as RuleLanguage;
      if (!RULE_LANGUAGES.includes(language)) throw new RuleError(`${shown}: language must be one of ${RULE_LANGUAGES.join(', ')}`);
      if (path.basename(file).startsWith('_taint')) {
        const profile = parseProfile(doc, language, shown);
        const existing = set.profiles[language];
        set.profiles[language] = existing
          ? {
              language,
              sources: [...existing.sources, ...profile.sources],
              sanitizers: [...existing.sanitizers, ...profile.sanitizers],
              handlerDecorators: [...existing.handlerDecorators, ...profile.handlerDecorators],
              handlerRegistrations: [...existing.handlerRegistrations, ...profile.handlerRegistrations],
              frameworkParams: [...existing.frameworkParams, ...profile.frameworkParams],
              untrustedParams: existing.untrustedParams || profile.untrustedParams,
              ignoreParamPassThrough: existing.ignoreParamPassThrough || profile.ignoreParamPassThrough,
              passThroughCalls: [...existing.passThroughCalls, ...profile.passThroughCalls],
            }
          : profile;
        continue;
      }
      for (const raw of list(doc.rules)) {
        const rule = parseRule(raw as Record<string, unknown>, language, shown);
        if (ids.has(rule.id)) throw new RuleError(`${shown}: duplicate rule id ${rule.id}`);
        ids.add(rule.id);
        set.rules.push(rule);
      }
    }
  }
  set.version = version.digest('hex');
  return set;
}

import { parse, type SgNode } from '@ast-grep/napi';
import { firstCallee } from '../match-identity.ts';
import { INLINE_ALLOW } from '../secrets/text-checks.ts';
import { astGrepLang, registerLanguages, ruleLanguageOf, taintSyntaxOf, type ParserName, type RuleLanguage } from '../../languages/index.ts';
import { CombinedMatcher, type Found, type MatcherRule } from './combined-matcher.ts';
import type { AstRule, RuleSet, SastRule } from './rule-set.ts';
import { TaintAnalyzer, type TaintMatches } from './taint.ts';

// The analysis of one file: it is parsed once, every ast-grep rule of its language (pattern rules and what
// taint rules look for) is matched in one walk of its tree, and taint tracking runs on that tree.

export interface SastMatch {
  rule: SastRule;
  /** 1-based lines of the match. */
  startLine: number;
  endLine: number;
  text: string;
  /** The callee of the call the match is or sits in, e.g. `requests.get`. */
  anchor: string | null;
}

const CALL_KINDS = /(^|_)(call|invocation|new_expression|object_creation_expression)(_expression)?$/;
/** How far up from a match its call is looked for: an argument sits in an argument list in the call. */
const CALL_SEARCH_DEPTH = 3;

function calleeOf(call: SgNode): string {
  const field = (name: string) => call.field(name as never) as SgNode | null;
  const callee = field('function') ?? field('constructor');
  if (callee) return callee.text().replace(/\s+/g, '');
  const name = field('name') ?? field('method');
  const receiver = field('object') ?? field('receiver');
  if (name) return `${receiver ? `${receiver.text()}.` : ''}${name.text()}`.replace(/\s+/g, '');
  return call.text().split('(')[0].replace(/\s+/g, '');
}

/** The callee of the nearest call at or above the node, or null when there is none close by. */
function anchorOf(node: SgNode): string | null {
  let current: SgNode | null = node;
  for (let depth = 0; current && depth <= CALL_SEARCH_DEPTH; depth++, current = current.parent()) {
    if (CALL_KINDS.test(current.kind() as string)) return calleeOf(current) || null;
  }
  return null;
}

const fromNode = (rule: SastRule, node: SgNode): SastMatch => {
  const range = node.range();
  return { rule, startLine: range.start.line + 1, endLine: range.end.line + 1, text: node.text(), anchor: anchorOf(node) };
};

function regexMatches(rules: SastRule[], source: string): SastMatch[] {
  const matches: SastMatch[] = [];
  const lineAt = (offset: number) => source.slice(0, offset).split('\n').length;
  for (const rule of rules) {
    const pattern = new RegExp(rule.regex!.source, rule.regex!.flags);
    for (let m = pattern.exec(source); m; m = pattern.exec(source)) {
      if (!m[0]) {
        pattern.lastIndex++;
        continue;
      }
      matches.push({ rule, startLine: lineAt(m.index), endLine: lineAt(m.index + m[0].length - 1), text: m[0], anchor: firstCallee(m[0]) });
    }
  }
  return matches;
}

/** What a language's rules look for, joined in one matcher, and where each part sits in it. */
interface LanguagePlan {
  rules: SastRule[];
  patternRules: { rule: SastRule; at: number }[];
  taint?: {
    rules: SastRule[];
    sinks: { rule: SastRule; focus?: string; at: number }[];
    sources: number[];
    sanitizers: number[];
    ruleSanitizers: Map<string, { at: number[]; allOfKind: { kind: string; except: number }[] }>;
    registrations: number[];
  };
  matcher: CombinedMatcher;
}

function planFor(ruleSet: RuleSet, language: RuleLanguage): LanguagePlan {
  const entries: MatcherRule[] = [];
  const add = (entry: MatcherRule) => entries.push(entry) - 1;
  const rules = ruleSet.rules.filter((r) => r.language === language);
  const patternRules = rules.filter((r) => r.mode === 'pattern').map((rule) => ({ rule, at: add({ rule: rule.rule!, constraints: rule.constraints }) }));
  const profile = ruleSet.profiles[language];
  const taintRules = rules.filter((r) => r.mode === 'taint');
  let taint: LanguagePlan['taint'];
  if (taintSyntaxOf(language) && profile && taintRules.length) {
    taint = {
      rules: taintRules,
      sinks: taintRules.flatMap((rule) => rule.sinks.map((sink) => ({ rule, focus: sink.focus, at: add({ rule: sink.rule }) }))),
      // What sources, sanitizers and handler registrations find counts only in a file with a sink.
      sources: [...profile.sources, ...taintRules.flatMap((r) => r.sources)].map((rule) => add({ rule, supporting: true })),
      sanitizers: profile.sanitizers.map((rule) => add({ rule, supporting: true })),
      ruleSanitizers: new Map(
        taintRules.map((r) => {
          const at: number[] = [];
          const allOfKind: { kind: string; except: number }[] = [];
          for (const rule of r.sanitizers) {
            // Every node of a kind but some (every call but those of a few names) would find most of the tree:
            // what it excepts is found instead, and the rest of the kind taken as matched.
            const complement = complementOf(rule);
            if (complement) allOfKind.push({ kind: complement.kind, except: add({ rule: complement.except, supporting: true }) });
            else at.push(add({ rule, supporting: true, broad: true }));
          }
          return [r.id, { at, allOfKind }];
        }),
      ),
      registrations: profile.handlerRegistrations.map((rule) => add({ rule, supporting: true })),
    };
  }
  return { rules, patternRules, taint, matcher: new CombinedMatcher(entries) };
}

/**
 * A rule `{ kind: K, not: R }` as the kind it matches and the nodes of that kind it does not (those R matches,
 * `{ kind: K, all: [R] }`); undefined for a rule of any other shape.
 */
export function complementOf(rule: AstRule): { kind: string; except: AstRule } | undefined {
  if (!rule || typeof rule !== 'object' || Array.isArray(rule)) return undefined;
  const { kind, not, ...rest } = rule as Record<string, unknown>;
  if (typeof kind !== 'string' || !not || typeof not !== 'object' || Array.isArray(not) || Object.keys(rest).length) return undefined;
  return { kind, except: { kind, all: [not as AstRule] } };
}

const plans = new WeakMap<RuleSet, Map<RuleLanguage, LanguagePlan>>();

function cachedPlan(ruleSet: RuleSet, language: RuleLanguage): LanguagePlan {
  let byLanguage = plans.get(ruleSet);
  if (!byLanguage) plans.set(ruleSet, (byLanguage = new Map()));
  let plan = byLanguage.get(language);
  if (!plan) byLanguage.set(language, (plan = planFor(ruleSet, language)));
  return plan;
}

const idsOf = (found: Found[][], at: number[]): Set<number> => new Set(at.flatMap((i) => found[i].map((f) => f.node.id())));

/** The matches of a file from what the plan's rules found in its tree: pattern rules, then taint tracking. */
function matchesOf(ruleSet: RuleSet, plan: LanguagePlan, language: RuleLanguage, root: SgNode | undefined, found: Found[][], entryPoints?: ReadonlySet<string>): SastMatch[] {
  const matches: SastMatch[] = [];
  for (const { rule, at } of plan.patternRules) for (const { node } of found[at]) matches.push(fromNode(rule, node));
  const { taint } = plan;
  if (!root || !taint || !taint.sinks.some((s) => found[s.at].length)) return matches;
  const sinkMatches: TaintMatches['sinkMatches'] = [];
  for (const sink of taint.sinks) {
    for (const { node, vars } of found[sink.at]) {
      const focus = sink.focus ? node.getMatch(vars + sink.focus) : node;
      if (focus) sinkMatches.push({ rule: sink.rule, node, focus });
    }
  }
  const taintMatches: TaintMatches = {
    sourceIds: idsOf(found, taint.sources),
    sourceStarts: taint.sources.flatMap((i) => found[i].map((f) => f.node.range().start.index)).sort((a, b) => a - b),
    sanitizerIds: idsOf(found, taint.sanitizers),
    ruleSanitizerIds: new Map(
      taint.rules.map((r) => {
        const { at, allOfKind } = taint.ruleSanitizers.get(r.id)!;
        return [r.id, { ids: idsOf(found, at), allOfKind: allOfKind.map(({ kind, except }) => ({ kind, except: idsOf(found, [except]) })) }];
      }),
    ),
    sinkMatches,
    registrationCalls: taint.registrations.flatMap((i) => found[i].map((f) => f.node)),
  };
  const profile = ruleSet.profiles[language]!;
  for (const hit of new TaintAnalyzer(root, taintSyntaxOf(language)!, profile, taint.rules, taintMatches, entryPoints).analyze()) matches.push(fromNode(hit.rule, hit.sink));
  return matches;
}

/**
 * A hard-coded credential a developer marked on its line as a known test value (`# pragma: allowlist secret`,
 * `gitleaks:allow`, `bulwark:allow`) is not reported, as the secrets scan does not report it either.
 */
function withoutAllowedSecrets(matches: SastMatch[], source: string): SastMatch[] {
  if (!matches.some((m) => m.rule.category === 'secrets')) return matches;
  const lines = source.split('\n');
  const allowed = (m: SastMatch) => lines.slice(m.startLine - 1, m.endLine).some((line) => INLINE_ALLOW.test(line));
  return matches.filter((m) => m.rule.category !== 'secrets' || !allowed(m));
}

/**
 * All findings of every rule of the file's language, the file parsed once for them all. `entryPoints` names
 * top-level functions whose parameters are to be taken as request data (see TaintAnalyzer).
 */
export function analyzeSource(ruleSet: RuleSet, parser: ParserName, source: string, entryPoints?: ReadonlySet<string>): SastMatch[] {
  registerLanguages();
  const language = ruleLanguageOf(parser);
  const plan = cachedPlan(ruleSet, language);
  if (!plan.rules.length) return [];
  if (parser === 'template') return regexMatches(plan.rules, source);
  const root = parse(astGrepLang(parser) as never, source).root();
  return withoutAllowedSecrets(matchesOf(ruleSet, plan, language, root, plan.matcher.matchAll(root, source, parser), entryPoints), source);
}

/**
 * analyzeSource for many files of one parser, read from disk by ast-grep in one call (`path` absolute, `text`
 * what it holds, valid UTF-8): for each file its matches, or the error that stopped its analysis.
 */
export async function analyzeSources(ruleSet: RuleSet, parser: ParserName, files: { path: string; text: string }[]): Promise<(SastMatch[] | Error)[]> {
  registerLanguages();
  const language = ruleLanguageOf(parser);
  const plan = cachedPlan(ruleSet, language);
  if (!plan.rules.length) return files.map(() => []);
  if (parser === 'template') return files.map((f) => regexMatches(plan.rules, f.text));
  const results: (SastMatch[] | Error)[] = files.map(() => new Error('it was not analyzed'));
  // Each file's matches are taken while the native nodes are young: they hold the file's tree until collected.
  await plan.matcher.matchFiles(parser, files, (index, matched) => {
    try {
      results[index] = matched instanceof Error ? matched : withoutAllowedSecrets(matchesOf(ruleSet, plan, language, matched.root, matched.found), files[index].text);
    } catch (error) {
      results[index] = error as Error;
    }
  });
  return results;
}

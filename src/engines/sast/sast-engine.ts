import crypto from 'node:crypto';
import path from 'node:path';
import { parse, type SgNode } from '@ast-grep/napi';
import type { EngineInput, RawFinding, ScanEngine } from '../engine.ts';
import { firstCallee, hashParts, normalizeMatch, snippetOf } from '../match-identity.ts';
import { isTestPath, loadIgnore, MAX_FILE_BYTES, readSourceText, listFiles } from '../source-files.ts';
import { externalSemgrepFindings, mergeFindings, type ExternalSemgrepOptions } from './external-semgrep.ts';
import { astGrepLang, parserFor, registerLanguages, ruleLanguageOf, taintSyntaxOf, type ParserName } from '../../languages/index.ts';
import { loadRuleSet, type RuleSet, type SastRule } from './rule-set.ts';
import { TaintAnalyzer } from './taint.ts';

/** Hand-written application scripts stay well below this; larger ones are bundles or copied-in libraries. */
const MAX_SCRIPT_BYTES = 200 * 1024;

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

export interface SastEngineOptions {
  /** Rule folders an operator adds to the built-in ones; the configured BULWARK_SAST_RULES_DIRS when absent. */
  extraRuleDirs?: string[];
  /** A `semgrep`/`opengrep` run whose results are merged in, when configs are set and a binary is found. */
  externalSemgrep?: ExternalSemgrepOptions;
}

/** All findings of every rule of the file's language, the file parsed once for them all. */
export function analyzeSource(ruleSet: RuleSet, parser: ParserName, source: string): SastMatch[] {
  registerLanguages();
  const language = ruleLanguageOf(parser);
  const rules = ruleSet.rules.filter((r) => r.language === language);
  if (!rules.length) return [];
  if (parser === 'template') return regexMatches(rules, source);
  const root = parse(astGrepLang(parser) as never, source).root();
  const matches: SastMatch[] = [];
  for (const rule of rules.filter((r) => r.mode === 'pattern')) {
    try {
      for (const node of root.findAll({ rule: rule.rule as never, constraints: rule.constraints as never })) matches.push(fromNode(rule, node));
    } catch {
      // A pattern that does not parse in this dialect (say, JavaScript syntax on TSX) matches nothing here.
    }
  }
  const syntax = taintSyntaxOf(language);
  const profile = ruleSet.profiles[language];
  const taintRules = rules.filter((r) => r.mode === 'taint');
  if (syntax && profile && taintRules.length) {
    for (const hit of new TaintAnalyzer(root, syntax, profile, taintRules).analyze()) matches.push(fromNode(hit.rule, hit.sink));
  }
  return matches;
}

function toFinding(match: SastMatch, filePath: string, source: string): RawFinding {
  const { rule } = match;
  const normalized = match.text.replace(/\s+/g, ' ').trim();
  return {
    checkId: rule.id,
    severity: rule.severity,
    category: rule.category,
    title: rule.message.split(/(?<=\.)\s/)[0].slice(0, 200),
    message: rule.message,
    filePath,
    startLine: match.startLine,
    endLine: match.endLine,
    cwe: rule.cwe,
    owasp: rule.owasp,
    references: rule.references,
    fingerprint: crypto.createHash('sha256').update(`${rule.id}\0${filePath}\0${normalized}`).digest('hex'),
    // The call is part of the match: the same argument passed to another call is another finding.
    matchHash: hashParts(rule.id, match.anchor ?? '', normalizeMatch(match.text)),
    anchor: match.anchor,
    snippet: snippetOf(source, match.startLine, match.endLine),
    commitSha: null,
    metadata: { confidence: rule.confidence, mode: rule.mode, ...(rule.fix ? { fix: rule.fix } : {}) },
  };
}

/** Syntax-aware static analysis: ast-grep pattern rules and taint tracking over Python, JavaScript/TypeScript and more. */
export class SastEngine implements ScanEngine {
  readonly scanType = 'semgrep_scan' as const;
  private ruleSet: RuleSet | undefined;
  private readonly options: SastEngineOptions;

  constructor(options: SastEngineOptions = {}) {
    this.options = options;
  }

  rules(): RuleSet {
    this.ruleSet ??= loadRuleSet(this.options.extraRuleDirs);
    return this.ruleSet;
  }

  async scan(input: EngineInput): Promise<RawFinding[]> {
    const ruleSet = this.rules();
    const ignored = await loadIgnore(input.dir);
    const found = new Map<string, RawFinding>();
    const files = await listFiles(input.dir, ignored);
    for (const [index, file] of files.entries()) {
      input.signal?.throwIfAborted();
      input.onProgress?.({ phase: 'analyzing files', done: index, total: files.length });
      const parser = parserFor(file);
      if (!parser || isTestPath(file)) continue;
      const isScript = ruleLanguageOf(parser) === 'javascript';
      const source = await readSourceText(path.join(input.dir, file), isScript ? MAX_SCRIPT_BYTES : MAX_FILE_BYTES);
      if ('skipped' in source) {
        if (isScript && source.skipped === 'too large' && source.size <= MAX_FILE_BYTES) {
          input.onNote?.(`skipped ${file}: at ${Math.round(source.size / 1024)} KiB it looks like a bundled library rather than application code`);
        }
        continue;
      }
      let matches: SastMatch[];
      try {
        matches = analyzeSource(ruleSet, parser, source.text);
      } catch (error) {
        input.onNote?.(`skipped ${file}: it could not be analyzed (${(error as Error).message.split('\n')[0]})`);
        continue;
      }
      for (const match of matches) {
        const finding = toFinding(match, file, source.text);
        const key = `${finding.checkId}:${finding.filePath}:${finding.startLine}`;
        if (!found.has(key)) found.set(key, finding);
      }
    }
    input.onProgress?.({ phase: 'analyzing files', done: files.length, total: files.length });
    const external = await externalSemgrepFindings(input, this.options.externalSemgrep, ignored);
    return mergeFindings([...found.values()], external).sort((a, b) => a.filePath.localeCompare(b.filePath) || a.startLine - b.startLine);
  }
}

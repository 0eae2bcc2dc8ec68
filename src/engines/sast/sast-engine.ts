import crypto from 'node:crypto';
import path from 'node:path';
import type { EngineInput, RawFinding, ScanEngine } from '../engine.ts';
import { hashParts, normalizeMatch, snippetOf } from '../match-identity.ts';
import { isTestPath, loadIgnore, MAX_FILE_BYTES, readSourceText, listFiles } from '../source-files.ts';
import { externalSemgrepFindings, mergeFindings, type ExternalSemgrepOptions } from './external-semgrep.ts';
import { parserFor, ruleLanguageOf } from '../../languages/index.ts';
import { analyzeSource, type SastMatch } from './analyze.ts';
import { loadRuleSet, type RuleSet } from './rule-set.ts';

export { analyzeSource, type SastMatch } from './analyze.ts';

/** Hand-written application scripts stay well below this; larger ones are bundles or copied-in libraries. */
const MAX_SCRIPT_BYTES = 200 * 1024;

export interface SastEngineOptions {
  /** Rule folders an operator adds to the built-in ones; the configured BULWARK_SAST_RULES_DIRS when absent. */
  extraRuleDirs?: string[];
  /** A `semgrep`/`opengrep` run whose results are merged in, when configs are set and a binary is found. */
  externalSemgrep?: ExternalSemgrepOptions;
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

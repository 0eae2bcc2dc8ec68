import crypto from 'node:crypto';
import type { RawFinding } from '../engine.ts';
import { hashParts, normalizeMatch, snippetOf } from '../match-identity.ts';
import { analyzeSource } from '../sast/analyze.ts';
import { sastFinding } from '../sast/analyze-files.ts';
import type { RuleSet } from '../sast/rule-set.ts';
import { parserFor } from '../../languages/index.ts';
import { readSourceText } from '../source-files.ts';
import { entryPointsOf } from './cross-file.ts';
import type { EntryPointSummary } from './model-threats.ts';
import { declaredOperations } from './openapi-operations.ts';
import { looksMinified, MAX_SCRIPT_BYTES } from '../sast/analyze-files.ts';
import { checkJsSources, checkPythonSources, type ApplicationFinding, type Hotspots } from './application-checks.ts';
import type { JsSource } from './js-program.ts';
import type { PythonProgram, PythonSource } from './python-program.ts';

// The whole-application part of a deep scan, run as one task (it needs every file at once): reads the
// project's Python files and API descriptions, builds the program model, runs the checks over it, and traces
// request data across modules (into the functions handlers elsewhere call with it).

export interface AnalyzeApplicationRequest {
  dir: string;
  /** The Python files to model, relative to `dir`. */
  files: string[];
  /** The JavaScript and TypeScript files to model. */
  scripts: string[];
  /** YAML and JSON files that may be API descriptions routing requests to functions (OpenAPI, connexion). */
  descriptions: string[];
  /** Where the static analysis found something serious, by file. */
  hotspots: Hotspots;
  /** The scan's SAST rules, for tracing request data into other modules. */
  ruleSet: RuleSet;
}

function toFinding(finding: ApplicationFinding, source: string): RawFinding {
  const normalized = normalizeMatch(finding.text);
  return {
    checkId: finding.checkId,
    severity: finding.severity,
    category: finding.category,
    title: finding.title,
    message: finding.message,
    filePath: finding.path,
    startLine: finding.startLine,
    endLine: finding.endLine,
    cwe: finding.cwe,
    owasp: [],
    references: finding.cwe.map((cwe) => `https://cwe.mitre.org/data/definitions/${/^CWE-(\d+)/.exec(cwe)?.[1]}.html`),
    fingerprint: crypto.createHash('sha256').update(`${finding.checkId}\0${finding.path}\0${normalized}`).digest('hex'),
    matchHash: hashParts(finding.checkId, '', normalized),
    anchor: null,
    snippet: snippetOf(source, finding.startLine, finding.endLine),
    commitSha: null,
    metadata: { confidence: 'medium', mode: 'application' },
  };
}

/** How a top-level function starts a line: Python's `def`, JavaScript's declarations and exports. */
const TOP_LEVEL_FUNCTION = {
  python: /^(?:async\s+)?def\s+(\w+)/,
  script: /^(?:export\s+(?:default\s+)?)?(?:async\s+)?function\s*\*?\s*([\w$]+)|^(?:module\.)?exports\.[\w$]+\s*=\s*(?:async\s+)?function\s*([\w$]+)/,
};

/** The top-level function a line of a text sits in, by the start of its definition at the start of a line above it. */
function functionAt(text: string, line: number, script: boolean): string | undefined {
  const lines = text.split('\n');
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const def = (script ? TOP_LEVEL_FUNCTION.script : TOP_LEVEL_FUNCTION.python).exec(lines[i]);
    if (def) return def[1] ?? def[2];
    if (/^(?:class\s|\S)/.test(lines[i]) && i < line - 1 && !/^[@#)\]}/]/.test(lines[i])) return undefined;
  }
  return undefined;
}

/**
 * Taint hits in modules that receive request data from elsewhere: each file traced again with those
 * functions' parameters taken as request data, every hit inside them told where the data comes from (`flow`).
 * Most are findings the static phase has too (a public function's parameters are untrusted there already),
 * now with the path that shows a request reaches them; the others are new (private functions).
 */
function crossModuleFindings(program: PythonProgram, ruleSet: RuleSet): RawFinding[] {
  const findings: RawFinding[] = [];
  for (const [file, entries] of entryPointsOf(program)) {
    const parser = parserFor(file.path);
    if (!parser) continue;
    for (const match of analyzeSource(ruleSet, parser, file.text, new Set(entries.keys()))) {
      const through = functionAt(file.text, match.startLine, parser !== 'python');
      if (match.rule.mode !== 'taint' || !through || !entries.has(through)) continue;
      const from = entries.get(through)!;
      const finding = sastFinding(match, file.path, file.text);
      finding.message = `${finding.message} Request data reaches it from ${from} through ${through}().`;
      finding.metadata = { ...finding.metadata, flow: { from, through } };
      findings.push(finding);
    }
  }
  return findings;
}

export interface ApplicationAnalysis {
  findings: RawFinding[];
  /** The program's entry points, for the model's discovery. */
  entryPoints: EntryPointSummary[];
  /** The packages the program imports, for the threat model. */
  packages: string[];
}

export async function analyzeApplication(request: AnalyzeApplicationRequest): Promise<ApplicationAnalysis> {
  const sources: PythonSource[] = [];
  for (const file of request.files) {
    const read = await readSourceText(request.dir, file);
    if ('text' in read) sources.push({ path: file, text: read.text });
  }
  const operations = [];
  for (const file of request.descriptions) {
    const read = await readSourceText(request.dir, file);
    if ('text' in read) operations.push(...declaredOperations(read.text));
  }
  const scripts: JsSource[] = [];
  for (const file of request.scripts) {
    const read = await readSourceText(request.dir, file, MAX_SCRIPT_BYTES);
    if ('text' in read && !looksMinified(read.text)) scripts.push({ path: file, text: read.text });
  }
  const texts = new Map([...sources, ...scripts].map((s) => [s.path, s.text]));
  const { findings, program } = await checkPythonSources(sources, request.hotspots, operations);
  const js = scripts.length ? await checkJsSources(scripts, request.hotspots) : { findings: [], program: { files: [], handlers: [], imports: new Set<string>() } };
  return {
    findings: [
      ...[...findings, ...js.findings].map((f) => toFinding(f, texts.get(f.path) ?? '')),
      ...crossModuleFindings(program, request.ruleSet),
      ...crossModuleFindings(js.program, request.ruleSet),
    ],
    packages: [...new Set([...program.imports, ...js.program.imports])].filter((name) => !name.startsWith('.')).sort().slice(0, 100),
    entryPoints: [...program.handlers, ...js.program.handlers].map((h) => ({ file: h.file.path, line: h.line, name: h.className ? `${h.className}.${h.name}` : h.name, methods: h.methods, paths: h.paths, guarded: h.guarded })),
  };
}

import crypto from 'node:crypto';
import path from 'node:path';
import type { RawFinding } from '../engine.ts';
import { hashParts, normalizeMatch, snippetOf } from '../match-identity.ts';
import { readSourceText } from '../source-files.ts';
import { checkPythonSources, type ApplicationFinding, type Hotspots } from './python-checks.ts';
import type { PythonSource } from './python-program.ts';

// The whole-application part of a deep scan, run as one task (it needs every file at once): reads the
// project's Python files, builds the program model and runs the checks over it.

export interface AnalyzeApplicationRequest {
  dir: string;
  /** The Python files to model, relative to `dir`. */
  files: string[];
  /** Where the static analysis found something serious, by file. */
  hotspots: Hotspots;
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

export async function analyzeApplication(request: AnalyzeApplicationRequest): Promise<RawFinding[]> {
  const sources: PythonSource[] = [];
  for (const file of request.files) {
    const read = await readSourceText(path.join(request.dir, file));
    if ('text' in read) sources.push({ path: file, text: read.text });
  }
  const texts = new Map(sources.map((s) => [s.path, s.text]));
  return (await checkPythonSources(sources, request.hotspots)).map((f) => toFinding(f, texts.get(f.path) ?? ''));
}

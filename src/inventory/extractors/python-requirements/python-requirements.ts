import path from 'node:path';
import { valid as validPep440Version } from '@renovatebot/pep440';
import { component } from '../../component.ts';
import type { Component } from '../../component.ts';
import { ExtractError } from '../extractor.ts';
import type { ExtractContext, Extractor, ManifestFile } from '../extractor.ts';
import { uniquePythonComponents } from '../python/python-names.ts';

// pip requirements files (https://pip.pypa.io/en/stable/reference/requirements-file-format/). An exact
// pin becomes a component at its version; a requirement with a range or no version at all is still a
// dependency the SBOM must list, so it becomes a component without a version and a note saying it is
// unpinned (matching skips it: no single version to look up). Everything in such a file is something
// the project asked for, so all of it is direct.

/** `requirements.txt`, `requirements-dev.txt`, `requirements_test.txt`, `dev-requirements.txt`, ... */
const FILE_NAME = /(?:^|[-_.])requirements(?:[-_.][\w.-]*)?\.txt$/i;

/** A line that is only a comment; pip does not treat its trailing backslash as a continuation. */
const COMMENT_LINE = /^\s*#/;
/** A `#` at the start or after whitespace starts a comment; one inside a URL (`#egg=`) does not. */
const COMMENT = /(?:^|\s+)#.*$/;
const NAME_EXTRAS_REST = /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*(.*)$/s;
const VERSION_CLAUSE = /^\s*(===|==|~=|!=|<=|>=|<|>)\s*([^\s,;()]+)\s*$/;
const URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

interface LogicalLine {
  lineNumber: number;
  text: string;
}

type Line = { kind: 'include'; target: string } | { kind: 'requirement'; text: string } | { kind: 'ignored' };

interface Pin {
  name: string;
  /** Empty for an unpinned requirement. */
  version: string;
  note?: string;
}

export const requirementsExtractor: Extractor = {
  id: 'pip-requirements',
  ecosystem: 'PyPI',
  docs: '`requirements*.txt` (pins, extras, markers, `-r` includes)',
  fileNames: [FILE_NAME],
  lockfile: false,
  async extract(file, context) {
    const components: Component[] = [];
    await collectPins({ path: path.posix.normalize(file.path), text: file.text }, context, new Set(), components);
    return uniquePythonComponents(components);
  },
};

/** Reads one requirements file into `into`, following `-r` includes in place, each file at most once. */
async function collectPins(file: ManifestFile, context: ExtractContext, visited: Set<string>, into: Component[]): Promise<void> {
  visited.add(file.path);
  for (const { lineNumber, text } of logicalLines(file.text)) {
    const line = classify(text);
    if (line.kind === 'requirement') {
      const pin = exactPin(line.text, file.path, lineNumber);
      if (pin) into.push(component({ ...pin, ecosystem: 'PyPI', direct: true, sourceFile: file.path }));
    } else if (line.kind === 'include') {
      const includedPath = resolveInclude(file.path, line.target);
      if (includedPath === null || visited.has(includedPath)) continue;
      const includedText = await context.readFile(includedPath);
      // A missing include is often generated at build time; the rest of the file still counts.
      if (includedText !== null) await collectPins({ path: includedPath, text: includedText }, context, visited, into);
    }
  }
}

/** Lines as pip sees them: continuations joined, comments and blank lines gone. */
function logicalLines(text: string): LogicalLine[] {
  const joined: LogicalLine[] = [];
  let pending: string[] = [];
  let pendingStart = 0;
  text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\r|\n/)
    .forEach((physical, index) => {
      if (physical.endsWith('\\') && !COMMENT_LINE.test(physical)) {
        if (pending.length === 0) pendingStart = index + 1;
        pending.push(physical.slice(0, -1));
        return;
      }
      if (pending.length > 0) {
        joined.push({ lineNumber: pendingStart, text: pending.join('') + physical });
        pending = [];
      } else {
        joined.push({ lineNumber: index + 1, text: physical });
      }
    });
  if (pending.length > 0) joined.push({ lineNumber: pendingStart, text: pending.join('') });
  return joined
    .map((line) => ({ ...line, text: line.text.replace(COMMENT, '').trim() }))
    .filter((line) => line.text !== '');
}

/**
 * Splits a line the way pip does: the words before the first one starting with `-` are the requirement,
 * the rest are options (`--hash=...` and the like). A line that starts with an option is an option line;
 * of those only `-r`/`--requirement` adds requirements (`-c` constraints only narrow them, `-e` is a
 * local or VCS checkout, the rest configure indexes and builds).
 */
function classify(text: string): Line {
  const words = text.split(/\s+/);
  const firstOption = words.findIndex((word) => word.startsWith('-'));
  if (firstOption > 0) return { kind: 'requirement', text: words.slice(0, firstOption).join(' ') };
  if (firstOption === -1) return { kind: 'requirement', text };

  const [option, next] = words;
  const attached = /^(?:-r|--requirement=?)(.+)$/.exec(option);
  if (attached) return { kind: 'include', target: attached[1] };
  if ((option === '-r' || option === '--requirement') && next) return { kind: 'include', target: next };
  return { kind: 'ignored' };
}

/** Repository path of an included file; null for a URL or a path that leaves the tree. */
function resolveInclude(fromPath: string, target: string): string | null {
  const reference = target.replace(/\\/g, '/');
  if (URL.test(reference) || reference.startsWith('/')) return null;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(fromPath), reference));
  return resolved.startsWith('../') || resolved === '..' ? null : resolved;
}

/**
 * The name and version of an `==`/`===` pin; the name alone, with a note, for a requirement that pins no
 * single version (a range, a wildcard, no version at all); null for a URL, VCS reference or local path.
 * Environment markers are dropped: the target environment is unknown, so a conditional pin still counts.
 */
function exactPin(requirement: string, filePath: string, lineNumber: number): Pin | null {
  if (URL.test(requirement) || requirement.startsWith('file:')) return null; // git+https://..., file:...
  const parts = NAME_EXTRAS_REST.exec(requirement);
  if (!parts) return null; // ./local/path, ~/wheels/x.whl and the like
  const [, name, rest] = parts;
  // `name @ url` is a direct reference; `dir/pkg` and `C:\pkg` are paths.
  if (/^[@/\\:]/.test(rest)) return null;

  const specifiers = rest.split(';')[0].trim().replace(/^\((.*)\)$/s, '$1').trim();
  if (specifiers === '') return unpinned(name, 'no version');
  const clauses = specifiers.split(',').map((clause) => VERSION_CLAUSE.exec(clause));
  if (clauses.some((clause) => clause === null)) {
    throw new ExtractError(filePath, `line ${lineNumber}: not a requirement pip can read`);
  }
  if (clauses.length === 1) {
    const [, operator, version] = clauses[0]!;
    if (operator === '===') return { name, version };
    // valid() rejects wildcards such as 1.2.*, which match a series rather than one version.
    if (operator === '==' && validPep440Version(version) !== null) return { name, version };
  }
  return unpinned(name, specifiers.replace(/\s+/g, ''));
}

/** A requirement that names no single version: listed by name, with the range it allows. */
export function unpinned(name: string, allowed: string): Pin {
  return { name, version: '', note: `unpinned (${allowed}): no single version to check for vulnerabilities` };
}

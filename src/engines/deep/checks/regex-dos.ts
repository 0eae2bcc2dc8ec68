import type { SgNode } from '@ast-grep/napi';
import { CWE, endLineOf, lineOf, type Candidate, type FileContext } from './shared.ts';

// Regular expressions that backtrack catastrophically, run on data (ReDoS).

const REGEX_CALL = /^(?:re|regex)\.(?:match|search|fullmatch|findall|finditer|sub|subn|split|compile)$/;
const COMPILED_USE = /^(\w+)\.(?:match|search|fullmatch|findall|finditer|sub|subn|split)$/;
/** Both of the above, for ast-grep to pick the calls out natively. */
const REGEX_CALLEE = `${REGEX_CALL.source}|${COMPILED_USE.source}`;

/**
 * Whether a regular expression can backtrack catastrophically: a repeated group that itself holds a
 * repetition (`(a+)+`, `(\w+\s?)*`), the star height above one that safe-regex checks. Written here because
 * the check is a few lines over the pattern's text, and the libraries that do it are JavaScript-regex parsers.
 */
export function backtracksCatastrophically(pattern: string): boolean {
  /** For each group still open, whether something inside it repeats. */
  const open: boolean[] = [];
  const repeatsAt = (i: number) => pattern[i] === '*' || pattern[i] === '+' || (pattern[i] === '{' && /^\{\d*,\d*\}/.test(pattern.slice(i)));
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
    } else if (c === '[') {
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
    } else if (c === '(') {
      open.push(false);
    } else if (c === ')') {
      const repeatsInside = open.pop() ?? false;
      if (repeatsInside && repeatsAt(i + 1)) return true;
      if (open.length && (repeatsInside || repeatsAt(i + 1))) open[open.length - 1] = true;
    } else if (open.length && repeatsAt(i)) {
      open[open.length - 1] = true;
    }
  }
  return false;
}

/** A string literal's content, or the literal a module-level or same-function name is bound to. */
function regexLiteralOf(arg: SgNode | undefined, root: SgNode, scope: SgNode | undefined): string | undefined {
  if (!arg) return undefined;
  if (arg.kind() === 'string') return arg.text().replace(/^[rbuRBU]*(['"]{1,3})([\s\S]*)\1$/, '$2');
  if (arg.kind() !== 'identifier') return undefined;
  const binding = (where: SgNode | undefined) =>
    where?.findAll({ rule: { kind: 'assignment', has: { field: 'left', regex: `^${arg.text()}$` } } } as never).find((a) => a.field('right')?.kind() === 'string');
  const bound = binding(scope) ?? binding(root);
  return bound ? regexLiteralOf(bound.field('right') ?? undefined, root, undefined) : undefined;
}

/** A regular expression that backtracks catastrophically, run on data that is not a literal: CPU exhaustion (ReDoS). */
export function catastrophicRegex({ file, root }: FileContext): Candidate[] {
  const findings: Candidate[] = [];
  if (!/\bre(?:gex)?\b/.test(file.code)) return [];
  for (const call of root.findAll({ rule: { kind: 'call', has: { field: 'function', regex: REGEX_CALLEE } } } as never)) {
    const callee = call.field('function')?.text() ?? '';
    const args = call.field('arguments')?.children().filter((c) => c.isNamed()) ?? [];
    const scope = call.ancestors().find((a) => a.kind() === 'function_definition');
    // The text matched comes after the replacement in sub and subn.
    const substitutes = /\.subn?$/.test(callee) ? 1 : 0;
    let pattern: string | undefined;
    if (REGEX_CALL.test(callee)) {
      // re.compile(…) alone is reported where the compiled pattern is used, when that can be seen.
      if (callee.endsWith('.compile') && (call.parent()?.kind() === 'assignment' || call.parent()?.kind() === 'keyword_argument')) continue;
      const data = args[1 + substitutes];
      if (!callee.endsWith('.compile') && (!data || data.kind() === 'string')) continue;
      pattern = regexLiteralOf(args[0], root, scope);
    } else {
      const receiver = COMPILED_USE.exec(callee)?.[1];
      const data = args[substitutes];
      if (!receiver || !data || data.kind() === 'string') continue;
      const compiled = (where: SgNode | undefined) =>
        where
          ?.findAll({ rule: { kind: 'assignment', has: { field: 'left', regex: `^${receiver}$` } } } as never)
          .map((a) => a.field('right'))
          .find((r) => r?.kind() === 'call' && /^(?:re|regex)\.compile$/.test(r.field('function')?.text() ?? ''));
      const made = compiled(scope) ?? compiled(root);
      pattern = made ? regexLiteralOf(made.field('arguments')?.children().find((c) => c.isNamed()), root, scope) : undefined;
    }
    if (pattern === undefined || !backtracksCatastrophically(pattern)) continue;
    findings.push({
      finding: {
        checkId: 'python.deep.dos.catastrophic-regex',
        severity: 'medium',
        category: 'dos',
        cwe: [CWE[1333]],
        title: 'Regular expression with catastrophic backtracking',
        message:
          `The pattern ${JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 77)}...` : pattern)} repeats a group that itself ` +
          'repeats, so a crafted input of a few dozen characters makes matching take exponential time and holds a worker. Rewrite ' +
          'it without nested repetition, bound the input length, or use a linear-time engine (google-re2).',
        path: file.path,
        startLine: lineOf(call),
        endLine: endLineOf(call),
        text: call.text(),
      },
    });
  }
  return findings;
}

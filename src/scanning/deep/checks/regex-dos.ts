import type { SgNode } from '@ast-grep/napi';
import { CWE, endLineOf, lineOf, type ApplicationFinding, type Candidate, type FileContext } from './shared.ts';

// Regular expressions that backtrack catastrophically, run on data (ReDoS).

const REGEX_CALL = /^(?:re|regex)\.(?:match|search|fullmatch|findall|finditer|sub|subn|split|compile)$/;
const COMPILED_USE = /^(\w+)\.(?:match|search|fullmatch|findall|finditer|sub|subn|split)$/;
/** Both of the above, for ast-grep to pick the calls out natively. */
const REGEX_CALLEE = `${REGEX_CALL.source}|${COMPILED_USE.source}`;

/** Characters an atom can match, as a set over ASCII (anything beyond counts as one more "other" member). */
type CharSet = Set<number>;
const OTHER = 128;
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const WORD = new Set([...range(48, 57), ...range(65, 90), ...range(97, 122), 95]);
const DIGIT = new Set(range(48, 57));
const SPACE = new Set([9, 10, 11, 12, 13, 32]);
const ANY = new Set([...range(0, 127), OTHER]);
const complement = (set: CharSet): CharSet => new Set([...ANY].filter((c) => !set.has(c)));
const ESCAPED_SETS: Record<string, CharSet> = { w: WORD, d: DIGIT, s: SPACE, W: complement(WORD), D: complement(DIGIT), S: complement(SPACE) };
const codeOf = (ch: string): number => (ch.charCodeAt(0) < 128 ? ch.charCodeAt(0) : OTHER);
const disjoint = (a: CharSet, b: CharSet) => ![...a].some((c) => b.has(c));

/** One element of a sequence: what it matches, whether it must match, whether it repeats. */
interface Atom {
  chars: CharSet;
  mandatory: boolean;
  repeats: boolean;
  /** Unbounded repetition (`*`, `+`, `{n,}`): what makes backtracking exponential when nested. */
  unbounded: boolean;
  /** A group's own atoms. */
  inner?: Atom[];
}

/**
 * A small reader of the regular expression syntax Python and JavaScript share, down to what the check below
 * needs: atoms with their character sets and quantifiers. Written here because the ReDoS libraries on npm
 * either take seconds per pattern and flag polynomial cases too (redos-detector) or bring a large runtime
 * (recheck), for a question that a look at the pattern's structure answers.
 */
function atomsOf(pattern: string): Atom[] {
  let i = 0;
  const sequence = (): Atom[] => {
    const atoms: Atom[] = [];
    while (i < pattern.length && pattern[i] !== ')') {
      const c = pattern[i];
      let atom: Atom;
      if (c === '|') {
        i++;
        // Alternatives: what either side matches, each optional as far as a separator is concerned.
        for (const a of atoms) a.mandatory = false;
        continue;
      } else if (c === '(') {
        i++;
        if (pattern[i] === '?') while (i < pattern.length && !/[:=!)>]/.test(pattern[i]) && !(pattern[i] === '<' && /[=!]/.test(pattern[i + 1] ?? ''))) i++;
        if (pattern[i] === ':' || pattern[i] === '>') i++;
        else if (pattern[i] === '=' || pattern[i] === '!' || pattern[i] === '<') i += pattern[i] === '<' ? 2 : 1;
        const inner = sequence();
        i++;
        atom = { chars: new Set(inner.flatMap((a) => [...a.chars])), mandatory: inner.some((a) => a.mandatory), repeats: false, unbounded: false, inner };
      } else if (c === '[') {
        const negated = pattern[i + 1] === '^';
        i += negated ? 2 : 1;
        const chars: CharSet = new Set();
        let first = true;
        while (i < pattern.length && (pattern[i] !== ']' || first)) {
          first = false;
          let from: number;
          if (pattern[i] === '\\') {
            const e = pattern[i + 1] ?? '';
            i += 2;
            if (ESCAPED_SETS[e]) {
              for (const x of ESCAPED_SETS[e]) chars.add(x);
              continue;
            }
            from = codeOf(/[nrtfv]/.test(e) ? ({ n: '\n', r: '\r', t: '\t', f: '\f', v: '\v' } as Record<string, string>)[e] : e);
          } else from = codeOf(pattern[i++]);
          if (pattern[i] === '-' && pattern[i + 1] !== ']' && i + 1 < pattern.length) {
            const to = codeOf(pattern[i + 1] === '\\' ? pattern[i + 2] : pattern[i + 1]);
            i += pattern[i + 1] === '\\' ? 3 : 2;
            for (const x of range(Math.min(from, to), Math.max(from, to))) chars.add(x);
          } else chars.add(from);
        }
        i++;
        atom = { chars: negated ? complement(chars) : chars, mandatory: true, repeats: false, unbounded: false };
      } else if (c === '\\') {
        const e = pattern[i + 1] ?? '';
        i += 2;
        // Anchors and backreferences match no character of their own.
        if (/[bBAZzG1-9]/.test(e)) continue;
        atom = { chars: ESCAPED_SETS[e] ?? new Set([codeOf(e)]), mandatory: true, repeats: false, unbounded: false };
      } else if (c === '^' || c === '$') {
        i++;
        continue;
      } else {
        i++;
        atom = { chars: c === '.' ? ANY : new Set([codeOf(c)]), mandatory: true, repeats: false, unbounded: false };
      }
      const quantifier = /^(?:[*+?]|\{(\d*)(,?)(\d*)\})[?+]?/.exec(pattern.slice(i));
      if (quantifier) {
        i += quantifier[0].length;
        const q = quantifier[0][0];
        const min = q === '{' ? Number(quantifier[1] || 0) : q === '+' ? 1 : 0;
        const max = q === '{' ? (quantifier[2] ? (quantifier[3] ? Number(quantifier[3]) : Infinity) : min) : q === '?' ? 1 : Infinity;
        atom.mandatory &&= min > 0;
        atom.repeats = max > 1;
        atom.unbounded = max === Infinity;
      }
      atoms.push(atom);
    }
    return atoms;
  };
  const atoms: Atom[] = [];
  // A stray ")" ends a sequence early; read on after it.
  while (i < pattern.length) {
    atoms.push(...sequence());
    i++;
  }
  return atoms;
}

/** The characters repeated atoms anywhere inside `atoms` can match. */
function repeatedChars(atoms: Atom[]): CharSet | undefined {
  let found: CharSet | undefined;
  for (const a of atoms) {
    const inner = a.inner ? repeatedChars(a.inner) : undefined;
    const own = a.repeats ? a.chars : undefined;
    for (const set of [own, inner]) if (set) found = new Set([...(found ?? []), ...set]);
  }
  return found;
}

/**
 * Whether a regular expression can backtrack catastrophically (exponentially): an unboundedly repeated
 * group holding a repetition, where nothing the group must match separates one round from the next — no
 * mandatory character the inner repetition cannot consume (`(a+)+`, `(\w+\s?)*`, `([-.\w]*[a-z])*`, but not
 * `(\.\w+)*` or `(\w+,)*`).
 */
export function backtracksCatastrophically(pattern: string): boolean {
  const dangerous = (atoms: Atom[]): boolean =>
    atoms.some((a) => {
      if (!a.inner) return false;
      if (a.unbounded) {
        const repeated = repeatedChars(a.inner);
        if (repeated && !a.inner.some((x) => x.mandatory && !x.repeats && disjoint(x.chars, repeated))) return true;
      }
      return dangerous(a.inner);
    });
  try {
    return dangerous(atomsOf(pattern));
  } catch {
    return false;
  }
}

/** What it costs, and the linear-time engine to use instead, in each language. */
const CONSEQUENCE = {
  python: { stalls: 'makes matching take exponential time and holds a worker', engine: 'google-re2' },
  javascript: { stalls: 'blocks the event loop for seconds or more', engine: 're2' },
};

/** The finding for a pattern that backtracks catastrophically, but for where it is. */
export function catastrophicRegexFinding(language: keyof typeof CONSEQUENCE, pattern: string): Omit<ApplicationFinding, 'path' | 'startLine' | 'endLine' | 'text'> {
  const { stalls, engine } = CONSEQUENCE[language];
  return {
    checkId: `${language}.deep.dos.catastrophic-regex`,
    severity: 'medium',
    category: 'dos',
    cwe: [CWE[1333]],
    title: 'Regular expression with catastrophic backtracking',
    message:
      `The pattern ${JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 77)}...` : pattern)} repeats a group that itself ` +
      `repeats, so a crafted input of a few dozen characters ${stalls}. Rewrite it without nested repetition, bound the input ` +
      `length, or use a linear-time engine (${engine}).`,
  };
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
    findings.push({ finding: { ...catastrophicRegexFinding('python', pattern), path: file.path, startLine: lineOf(call), endLine: endLineOf(call), text: call.text() } });
  }
  return findings;
}

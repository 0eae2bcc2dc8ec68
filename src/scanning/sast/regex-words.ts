// Which whole words a text must hold for a rule's regex to match in it. The combined matcher skips a rule in
// files that lack the words its patterns spell out (combined-matcher.ts); a rule that only names what it looks
// for in a regex (`has: { field: function, regex: "^(readFile|readFileSync)$" }`) would otherwise be checked
// against every node of its kind in every file. No regex library answers this (they tell what a regex matches,
// not which words every match contains), so the regex is read here, and conservatively: whatever it cannot
// be sure of asks for nothing.
//
// A literal run of word characters is a whole word of the text only where the regex puts a non-word character,
// an anchor or a word boundary on both sides of it: `\.createHash$` holds the word createHash, `Hash\(` does
// not (it also matches createHash(). Runs may pass through groups of literal alternatives:
// `\.(readFile|readFileSync)\(` asks for one of readFile and readFileSync.

type Quantified = { min: number; max: number };
type Item = Quantified &
  (
    | { kind: 'word'; char: string }
    /** Matches only characters that are not word characters, or nothing (an anchor, a word boundary). */
    | { kind: 'break' }
    /** May match word characters this reading cannot name. */
    | { kind: 'unknown' }
    | { kind: 'group'; branches: Item[][] }
  );

class Unreadable extends Error {}

const WORD_CHAR = /^[A-Za-z0-9_]$/;
/** Most alternatives a run of literal groups may multiply into before it is given up. */
const MAX_ALTERNATIVES = 64;

function parse(source: string): Item[][] {
  let at = 0;
  const one = { min: 1, max: 1 };

  const quantifier = (): Quantified => {
    const c = source[at];
    let q: Quantified = one;
    if (c === '?') q = { min: 0, max: 1 };
    else if (c === '*') q = { min: 0, max: Infinity };
    else if (c === '+') q = { min: 1, max: Infinity };
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at));
      if (!m) throw new Unreadable();
      at += m[0].length - 1;
      q = { min: Number(m[1]), max: m[2] === undefined ? Number(m[1]) : m[3] ? Number(m[3]) : Infinity };
    } else return q;
    at++;
    if (source[at] === '?') at++;
    return q;
  };

  const characterClass = (): Item['kind'] => {
    at++;
    let negated = false;
    if (source[at] === '^') {
      negated = true;
      at++;
    }
    let wordCapable = negated;
    for (let first = true; at < source.length && (first || source[at] !== ']'); first = false) {
      const c = source[at];
      if (c === '[') throw new Unreadable();
      if (c === '\\') {
        const e = source[at + 1] ?? '';
        if (/[A-Za-z0-9]/.test(e) && !'sWtnr'.includes(e)) wordCapable = true;
        at += 2;
      } else {
        // a range (`!-~`) may span word characters whatever its ends are
        if (WORD_CHAR.test(c) || (c === '-' && !first && source[at + 1] !== ']')) wordCapable = true;
        at++;
      }
    }
    if (source[at] !== ']') throw new Unreadable();
    at++;
    return wordCapable ? 'unknown' : 'break';
  };

  const atom = (): Item => {
    const c = source[at];
    if (c === '(') {
      at++;
      let scopedFlags = false;
      if (source[at] === '?') {
        const named = /^\?P?<[A-Za-z_]\w*>/.exec(source.slice(at));
        if (source[at + 1] === ':') at += 2;
        else if (named) at += named[0].length;
        else {
          const flags = /^\?[A-Za-z-]+:/.exec(source.slice(at));
          // flags for the rest of the regex (`(?i)`), look-arounds and the like: not read
          if (!flags) throw new Unreadable();
          at += flags[0].length;
          scopedFlags = true;
        }
      }
      const branches = alternation();
      if (source[at] !== ')') throw new Unreadable();
      at++;
      // case-insensitive or otherwise flagged text may spell a word in any case
      return scopedFlags ? { kind: 'unknown', ...one } : { kind: 'group', branches, ...one };
    }
    if (c === '[') return { kind: characterClass(), ...one } as Item;
    if (c === '\\') {
      const e = source[at + 1];
      at += 2;
      if (e === undefined) throw new Unreadable();
      if ('sWbAztnr'.includes(e)) return { kind: 'break', ...one };
      if (/[A-Za-z0-9]/.test(e)) {
        if ('xupP'.includes(e)) throw new Unreadable();
        return { kind: 'unknown', ...one };
      }
      return { kind: 'break', ...one };
    }
    if ('*+?{'.includes(c)) throw new Unreadable();
    at++;
    if (c === '.') return { kind: 'unknown', ...one };
    if (c === '^' || c === '$') return { kind: 'break', ...one };
    return WORD_CHAR.test(c) ? { kind: 'word', char: c, ...one } : { kind: 'break', ...one };
  };

  const alternation = (): Item[][] => {
    const branches: Item[][] = [[]];
    while (at < source.length && source[at] !== ')') {
      if (source[at] === '|') {
        at++;
        branches.push([]);
        continue;
      }
      const item = atom();
      Object.assign(item, quantifier());
      branches.at(-1)!.push(item);
    }
    return branches;
  };

  const top = alternation();
  if (at !== source.length) throw new Unreadable();
  return top;
}

const fixed = (item: Item) => item.min === 1 && item.max === 1;

/** Whether an item always matches at least one character that is not a word character, or an anchor. */
function delimits(item: Item): boolean {
  if (item.min < 1) return false;
  if (item.kind === 'break') return true;
  return item.kind === 'group' && item.branches.every((branch) => branch.length > 0 && branch.every(delimits));
}

/** The texts a group of literal words (and nested such groups) can match, or undefined. */
function literalAlternatives(branches: Item[][]): string[] | undefined {
  const all: string[] = [];
  for (const branch of branches) {
    let texts = [''];
    for (const item of branch) {
      if (!fixed(item)) return undefined;
      if (item.kind === 'word') texts = texts.map((t) => t + item.char);
      else if (item.kind === 'group') {
        const inner = literalAlternatives(item.branches);
        if (!inner || texts.length * inner.length > MAX_ALTERNATIVES) return undefined;
        texts = texts.flatMap((t) => inner.map((i) => t + i));
      } else return undefined;
    }
    all.push(...texts);
  }
  return all.length <= MAX_ALTERNATIVES ? all : undefined;
}

/** What a sequence's matches must hold: each entry a set of words of which one is there. */
function clausesOf(sequence: Item[]): string[][] {
  const clauses: string[][] = [];
  /** The words the literal run since the last delimiter may spell; undefined when there is none. */
  let run: string[] | undefined;
  /** A run followed by non-word characters that may be none (`\s*`): a word if a delimiter comes next. */
  let pending: string[] | undefined;
  const complete = (words: string[] | undefined) => {
    if (words && words.every((word) => word.length > 0)) clauses.push([...new Set(words)]);
  };
  for (const item of sequence) {
    if (delimits(item)) {
      complete(run ?? pending);
      run = [''];
      pending = undefined;
      continue;
    }
    if (item.kind === 'break') {
      // only non-word characters, perhaps none: the run may end here, or run on into what follows
      if (run && run.some((word) => word.length > 0)) {
        pending = run;
        run = undefined;
      }
      continue;
    }
    pending = undefined;
    if (run && fixed(item) && item.kind === 'word') {
      run = run.map((word) => word + item.char);
      continue;
    }
    if (run && fixed(item) && item.kind === 'group') {
      const alternatives = literalAlternatives(item.branches);
      if (alternatives && run.length * alternatives.length <= MAX_ALTERNATIVES) {
        run = run.flatMap((word) => alternatives.map((a) => word + a));
        continue;
      }
    }
    run = undefined;
  }
  return clauses;
}

/**
 * The words a text must hold for `source` (a regex in ast-grep's syntax) to match some part of it: one list
 * per top-level alternative, each a list of clauses of which every one must hold one of its words. Undefined
 * when nothing can be said: an alternative asks for no word, or the regex uses what this reading leaves alone
 * (flags for the whole regex, look-arounds, Unicode classes).
 */
export function requiredWords(source: string): string[][][] | undefined {
  let branches: Item[][];
  try {
    branches = parse(source);
  } catch (error) {
    if (error instanceof Unreadable) return undefined;
    throw error;
  }
  const required = branches.map(clausesOf);
  return required.every((clauses) => clauses.length > 0) ? required : undefined;
}

import { findInFiles, parse, type SgNode } from '@ast-grep/napi';
import { astGrepLang, type ParserName } from '../../languages/index.ts';
import { cheapFirst } from './cheap-first.ts';
import { requiredWords } from './regex-words.ts';
import type { AstRule } from './rule-set.ts';

// Every ast-grep rule a file is checked against (pattern rules, taint sinks, sources, sanitizers) in one walk
// of its tree instead of one walk per rule. The rules that can match the files' text are joined in one rule,
// so every node found tells which rules found it: `any` stops at its first matching branch, so an `any` whose
// branches are tagged with metavariables that spell each rule's number in binary names the first rule that
// matches the node, and a second, with the branches reversed, the last one; the rare node that more rules
// match is checked against those between one by one. The rules are joined in groups, each with its own first
// and last: the rules whose findings count (pattern rules, taint sinks), the supporting ones (sources,
// sanitizers), and the broad supporting ones (a sanitizer that matches most calls), as a node a broad rule shares
// with another would otherwise have every rule between them checked again, each check a compile of that rule.
// Each rule's metavariables are renamed apart so that the `any`s never disagree over a name. ast-grep compiles
// a rule anew on every call, and compiling (regexes above all) costs more than matching, so a batch of files is
// matched with one call (`findInFiles`), which compiles the joined rule once and parses the files on native
// threads.

export interface MatcherRule {
  rule: AstRule;
  /** Metavariable constraints of a pattern rule; such a rule is matched on its own, as its names may clash. */
  constraints?: Record<string, AstRule>;
  /**
   * What the rule finds counts only in a file where a rule that is not supporting finds something (a taint
   * source or sanitizer matters only where there is a sink): elsewhere its matches are left unread.
   */
  supporting?: boolean;
  /**
   * A supporting rule that matches most nodes of a kind (a sanitizer named by what a call is not): such rules
   * are tagged apart from the other supporting rules, as a node they share would have every rule between them
   * checked again.
   */
  broad?: boolean;
}

/** Whether a text holds a word, as a whole word. */
type Holds = (word: string) => boolean;

/** Whether a rule can match a text at all: the words its patterns spell out must all be there. */
type Feasible = (holds: Holds) => boolean;

const ALWAYS: Feasible = () => true;

/** The words a pattern spells out literally (not metavariables): all must be in the text for a match. */
export function literalWords(pattern: string): string[] {
  return pattern.match(/(?<![$\w])[A-Za-z_]\w*/g) ?? [];
}

const RELATIONS = ['has', 'inside', 'follows', 'precedes'] as const;

/** A quick test of whether `rule` could match some node of a text, from the literal words of its patterns. */
export function feasibility(rule: unknown): Feasible {
  if (typeof rule === 'string') return wordsFeasible(literalWords(rule));
  if (!rule || typeof rule !== 'object' || Array.isArray(rule)) return ALWAYS;
  const r = rule as Record<string, unknown>;
  const parts: Feasible[] = [];
  if (typeof r.regex === 'string') parts.push(regexFeasible(r.regex));
  if (typeof r.pattern === 'string') parts.push(wordsFeasible(literalWords(r.pattern)));
  else if (r.pattern && typeof r.pattern === 'object' && typeof (r.pattern as { context?: unknown }).context === 'string') {
    parts.push(wordsFeasible(literalWords((r.pattern as { context: string }).context)));
  }
  for (const relation of RELATIONS) if (r[relation]) parts.push(feasibility(r[relation]));
  if (Array.isArray(r.all)) parts.push(...r.all.map(feasibility));
  if (Array.isArray(r.any)) {
    const branches = r.any.map(feasibility);
    if (!branches.includes(ALWAYS)) parts.push((holds) => branches.some((f) => f(holds)));
  }
  const specific = parts.filter((p) => p !== ALWAYS);
  if (!specific.length) return ALWAYS;
  return specific.length === 1 ? specific[0] : (holds) => specific.every((f) => f(holds));
}

const WORD = /\w+/g;

/**
 * `Holds` for a text. A pattern's literal words are whole words of any code it matches (an identifier, a
 * keyword, a string's content), so looking them up among the text's words is as sound as a substring search,
 * and costs one pass over the text for all of them.
 */
function holdsOf(text: string): Holds {
  let words: Set<string> | undefined;
  return (word) => {
    if (!words) {
      words = new Set();
      WORD.lastIndex = 0;
      for (let m = WORD.exec(text); m; m = WORD.exec(text)) words.add(m[0]);
    }
    return words.has(word);
  };
}

/** Whether a text holds the words every match of a regex holds (see regex-words.ts). */
function regexFeasible(regex: string): Feasible {
  const required = requiredWords(regex);
  return required ? (holds) => required.some((clauses) => clauses.every((words) => words.some(holds))) : ALWAYS;
}

function wordsFeasible(words: string[]): Feasible {
  const unique = [...new Set(words)];
  return unique.length ? (holds) => unique.every(holds) : ALWAYS;
}

/** A group of the joined rule: its rules, the names of its first and last rule's tags, and of its own tag. */
interface Group {
  members: number[];
  first: string;
  last: string;
  /** Set on a node some rule of the group matches; not asked of a lone group. */
  flag: string;
}

/** A rule that matches any node: the branch taken when a group does not match. */
const ANY_NODE = 'BWKD';

/** A reference to rule `index` of the joined rule's utilities, tagged with `tag` in binary under `name`. */
function tagged(index: number, tag: number, name: string): AstRule {
  const bits: AstRule[] = [];
  for (let bit = 0; tag >> bit; bit++) if ((tag >> bit) & 1) bits.push({ matches: `${name}${bit}` });
  return { all: [{ matches: `r${index}` }, ...bits] };
}

function tagOf(node: SgNode, bits: number, name: string): number {
  let tag = 0;
  for (let bit = 0; bit < bits; bit++) if (node.getMatch(`${name}${bit}`)) tag |= 1 << bit;
  return tag;
}

/** A capturing metavariable written as a whole token ($X, $$$ARGS); `$_X` captures nothing and stays as it is. */
const METAVARIABLE = /(?<![\w$])(\${1,3})([A-Z][A-Z0-9_]*)(?![\w$])/g;
const QUOTES = new Set(['"', "'", '`']);

/**
 * Whether every metavariable of a pattern is a token of its own, or the whole of a quoted string: text inside
 * a longer string literal is matched literally, and renaming it would change what the pattern matches.
 */
function renamable(pattern: string): boolean {
  let quote: string | undefined;
  let opened = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      else if (c === '$') {
        const m = /^\${1,3}[A-Z][A-Z0-9_]*/.exec(pattern.slice(i));
        if (m && (i !== opened + 1 || pattern[i + m[0].length] !== quote)) return false;
      }
    } else if (QUOTES.has(c)) {
      quote = c;
      opened = i;
    }
  }
  return true;
}

const PATTERN_KEYS = new Set(['pattern', 'context']);

/** `rule` with its metavariables prefixed, or undefined when a pattern of it cannot be renamed safely. */
export function withPrefixedMetavariables(rule: unknown, prefix: string): unknown {
  let safe = true;
  const visit = (value: unknown, key?: string): unknown => {
    if (typeof value === 'string') {
      if (!key || !PATTERN_KEYS.has(key)) return value;
      if (!renamable(value)) safe = false;
      return value.replace(METAVARIABLE, (_, dollars: string, name: string) => `${dollars}${prefix}${name}`);
    }
    if (Array.isArray(value)) return value.map((v) => visit(v, key));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v, k)]));
    }
    return value;
  };
  const renamed = visit(rule);
  return safe ? renamed : undefined;
}

/** Kinds only a file's root has: a node inside one is inside the file's root. */
const ROOT_KINDS = new Set(['program', 'module']);

/** `{ kind: <root>, regex, stopBy: end }` in an `inside`: a condition on the file's text, as `{ kind, regex }`. */
function fileCondition(relation: unknown): AstRule | undefined {
  if (!relation || typeof relation !== 'object' || Array.isArray(relation)) return undefined;
  const { kind, regex, stopBy, ...rest } = relation as Record<string, unknown>;
  const plain = typeof kind === 'string' && ROOT_KINDS.has(kind) && typeof regex === 'string' && stopBy === 'end' && !Object.keys(rest).length;
  return plain ? { kind, regex } : undefined;
}

/**
 * `rule` without the parts that ask something of the whole file (`inside: { kind: program, regex: …,
 * stopBy: end }`, at its top or in its top `all`), and those parts as rules that match the file's root.
 * Left in the rule, such a part is checked for every node the rest matches, each time walking up to the
 * root and running its regex over the whole file.
 */
export function withoutFileConditions(rule: AstRule): { rule: AstRule; conditions: AstRule[] } {
  const conditions: AstRule[] = [];
  const { inside, all, ...rest } = rule;
  const kept: AstRule = { ...rest };
  const top = fileCondition(inside);
  if (top) conditions.push(top);
  else if (inside !== undefined) kept.inside = inside;
  if (Array.isArray(all)) {
    const parts = all.filter((part) => {
      const only = part && typeof part === 'object' && !Array.isArray(part) && Object.keys(part).length === 1 ? (part as AstRule).inside : undefined;
      const condition = fileCondition(only);
      if (condition) conditions.push(condition);
      return !condition;
    });
    if (parts.length) kept.all = parts;
  } else if (all !== undefined) kept.all = all;
  // a rule that is nothing but such parts stays whole
  if (!conditions.length || !Object.keys(kept).length) return { rule, conditions: [] };
  return { rule: kept, conditions };
}

type JoinedRule = { utils: Record<string, AstRule>; rule: AstRule };

/** A node a rule matched, and the prefix of that rule's metavariable names in the node's captures. */
export interface Found {
  node: SgNode;
  vars: string;
}

/** Runs one rule the way a scan always has: a rule that does not fit the grammar matches nothing. */
function findAllOf(root: SgNode, entry: MatcherRule): Found[] {
  try {
    return root.findAll({ rule: entry.rule, constraints: entry.constraints } as never).map((node) => ({ node, vars: '' }));
  } catch {
    return [];
  }
}

/** What one file yields: its tree (when it was parsed) and, for each rule, what it matched there. */
export interface FileMatches {
  root: SgNode | undefined;
  found: Found[][];
}

/** A fixed list of rules, checked against files together; build it once and reuse it for every file. */
export class CombinedMatcher {
  private readonly entries: MatcherRule[];
  private readonly feasible: Feasible[];
  /** Each rule with its metavariables renamed apart; undefined for one matched on its own. */
  private readonly renamed: (AstRule | undefined)[];
  /** Per parser, whether each rule compiles for it (a JavaScript pattern may not parse as TSX). */
  private readonly valid = new Map<ParserName, boolean[]>();
  private readonly joined = new Map<string, JoinedRule>();

  /** Per rule, the rules (appended after the given ones) its file conditions became; see withoutFileConditions. */
  private readonly conditionsOf: number[][];

  constructor(entries: MatcherRule[]) {
    const conditions = new Map<string, number>();
    const appended: MatcherRule[] = [];
    const rewritten = entries.map((entry) => (entry.constraints ? { rule: entry.rule, conditions: [] } : withoutFileConditions(entry.rule)));
    this.conditionsOf = rewritten.map(({ conditions: found }) =>
      found.map((rule) => {
        const key = JSON.stringify(rule);
        let at = conditions.get(key);
        if (at === undefined) conditions.set(key, (at = entries.length + appended.push({ rule, supporting: true }) - 1));
        return at;
      }),
    );
    this.entries = [...entries.map((entry, i) => ({ ...entry, rule: rewritten[i].rule })), ...appended].map((entry) => ({ ...entry, rule: cheapFirst(entry.rule) }));
    // as written, with its file conditions: a rule is feasible only where they can hold too
    this.feasible = [...entries, ...appended].map((e) => feasibility(e.rule));
    this.renamed = this.entries.map((e, i) => (e.constraints ? undefined : (withPrefixedMetavariables(e.rule, `BWKE${i}_`) as AstRule | undefined)));
  }

  get size(): number {
    return this.entries.length;
  }

  private validFor(parser: ParserName): boolean[] {
    let valid = this.valid.get(parser);
    if (!valid) {
      const empty = parse(astGrepLang(parser) as never, '').root();
      const compiles = (rule: AstRule, constraints?: Record<string, AstRule>) => {
        try {
          empty.findAll({ rule, constraints } as never);
          return true;
        } catch {
          return false;
        }
      };
      // Compiling costs more than matching: one rule of them all usually shows every one fits the grammar.
      const together = this.entries.map((entry, i) => (entry.constraints ? undefined : (this.renamed[i] ?? entry.rule)));
      const allFit = compiles({ any: together.filter((r) => r !== undefined) });
      valid = this.entries.map((entry, i) => {
        if (allFit && together[i]) return true;
        return compiles(entry.rule, entry.constraints) && (!this.renamed[i] || compiles(this.renamed[i]!));
      });
      this.valid.set(parser, valid);
    }
    return valid;
  }

  /**
   * The rules that can match one of `texts`: those joined in one walk, and those matched on their own. Every
   * rule is taken to fit the grammar until the joined rule fails to compile (`checked`): checking costs a
   * compile of every rule, per parser and thread, and nearly always finds them all fit.
   */
  private split(parser: ParserName, holds: Holds[], checked = false): { joint: number[]; alone: number[] } {
    const valid = checked ? this.validFor(parser) : this.valid.get(parser);
    const joint: number[] = [];
    const alone: number[] = [];
    const conditions = new Set<number>();
    for (let i = 0; i < this.conditionsOf.length; i++) {
      if ((valid && !valid[i]) || !holds.some((h) => this.feasible[i](h))) continue;
      (this.renamed[i] ? joint : alone).push(i);
      for (const c of this.conditionsOf[i]) conditions.add(c);
    }
    // A file condition is looked at only where a rule that has it can match.
    for (const c of [...conditions].sort((a, b) => a - b)) if (!valid || valid[c]) joint.push(c);
    return { joint, alone };
  }

  /** The groups of `joint` that have rules: those whose findings count, then the supporting ones, the broad ones last. */
  private groupsOf(joint: number[]): Group[] {
    const groups: Group[] = [
      { members: joint.filter((i) => !this.entries[i].supporting), first: 'BWKA', last: 'BWKB', flag: 'BWKF' },
      { members: joint.filter((i) => this.entries[i].supporting && !this.entries[i].broad), first: 'BWKG', last: 'BWKH', flag: 'BWKI' },
      { members: joint.filter((i) => this.entries[i].supporting && this.entries[i].broad), first: 'BWKJ', last: 'BWKK', flag: 'BWKL' },
    ];
    return groups.filter((g) => g.members.length);
  }

  /** Each rule and each tag is a utility rule, compiled once however often the `any`s name it. */
  private joinedRule(joint: number[]): JoinedRule {
    const key = joint.join(',');
    let config = this.joined.get(key);
    if (!config) {
      const utils: Record<string, AstRule> = { [ANY_NODE]: { pattern: `$${ANY_NODE}` } };
      for (const i of joint) utils[`r${i}`] = this.renamed[i]!;
      const groups = this.groupsOf(joint);
      const parts = groups.map((group) => {
        for (const tag of [group.first, group.last]) for (let bit = 0; group.members.length >> bit; bit++) utils[`${tag}${bit}`] = { pattern: `$${tag}${bit}` };
        utils[group.flag] = { pattern: `$${group.flag}` };
        const first = group.members.map((i, k) => tagged(i, k + 1, group.first));
        const last = group.members.map((i, k) => tagged(i, k + 1, group.last)).reverse();
        return { all: [{ any: first }, { any: last }, { matches: group.flag }] };
      });
      // A node of one group may also be one of each later group; one no earlier group matches must be in this one.
      const optional = (part: AstRule): AstRule => ({ any: [part, { matches: ANY_NODE }] });
      const branches = parts.map((part, g) => (g === parts.length - 1 ? part : { all: [part, ...parts.slice(g + 1).map(optional)] }));
      const rule = branches.length === 1 ? branches[0] : { any: branches };
      config = { utils, rule };
      if (this.joined.size > 64) this.joined.clear();
      this.joined.set(key, config);
    }
    return config;
  }

  /**
   * Sorts what the joined rule found into `result`, per rule, in the order the walk met the nodes; unless
   * `decided` (a rule matched on its own found something that counts), nothing is read from a file where only
   * supporting rules match. Each question asked of a node crosses into native code and costs microseconds.
   */
  private sort(nodes: SgNode[], joint: number[], result: Found[][], decided = false): void {
    const groups = this.groupsOf(joint);
    if (!groups.length) return;
    const flagsOf = (group: Group) => (groups.length > 1 ? nodes.map((node) => !!node.getMatch(group.flag)) : nodes.map(() => true));
    const counts = groups[0].members.some((i) => !this.entries[i].supporting);
    const decisive = counts ? flagsOf(groups[0]) : undefined;
    if (!decided && !decisive?.includes(true)) return;
    const flags = groups.map((group, g) => (g === 0 && decisive ? decisive : flagsOf(group)));
    groups.forEach((group, g) => {
      const bits = Math.floor(Math.log2(group.members.length)) + 1;
      nodes.forEach((node, n) => {
        if (!flags[g][n]) return;
        const first = tagOf(node, bits, group.first) - 1;
        const last = tagOf(node, bits, group.last) - 1;
        if (first < 0) return;
        const rule = (k: number) => group.members[k];
        result[rule(first)].push({ node, vars: `BWKE${rule(first)}_` });
        if (last <= first) return;
        for (let between = first + 1; between < last; between++) {
          const again = findFirst(node, this.entries[rule(between)]);
          if (again && again.id() === node.id()) result[rule(between)].push({ node: again, vars: '' });
        }
        result[rule(last)].push({ node, vars: `BWKE${rule(last)}_` });
      });
    });
  }

  /**
   * What a rule with file conditions found stays only where the file's root met them all (and is not the root
   * itself, which is inside nothing).
   */
  private applyFileConditions(found: Found[][]): void {
    this.conditionsOf.forEach((conditions, i) => {
      if (!conditions.length || !found[i].length) return;
      if (conditions.some((c) => !found[c].length)) found[i] = [];
      else {
        const root = found[conditions[0]][0].node.id();
        found[i] = found[i].filter((f) => f.node.id() !== root);
      }
    });
  }

  /** Whether a rule matched on its own, which is not supporting, found something. */
  private decidedAlone(alone: number[], found: Found[][]): boolean {
    return alone.some((i) => !this.entries[i].supporting && found[i].length > 0);
  }

  /**
   * For each rule (by its index in the list), the nodes it matches in `root`, in the order a walk of the tree
   * meets them, each with that rule's metavariables.
   */
  matchAll(root: SgNode, text: string, parser: ParserName): Found[][] {
    const holds = [holdsOf(text)];
    const joinedNodes = (joint: number[]): SgNode[] | undefined => {
      try {
        return joint.length ? root.findAll(this.joinedRule(joint) as never) : [];
      } catch {
        return undefined;
      }
    };
    let { joint, alone } = this.split(parser, holds);
    let nodes = joinedNodes(joint);
    if (!nodes && !this.valid.has(parser)) {
      ({ joint, alone } = this.split(parser, holds, true));
      nodes = joinedNodes(joint);
    }
    const result: Found[][] = this.entries.map(() => []);
    for (const i of alone) result[i] = findAllOf(root, this.entries[i]);
    // Should the joined rule fail where its parts do not, fall back to one walk per rule.
    if (!nodes) for (const i of joint) result[i] = findAllOf(root, this.entries[i]);
    else this.sort(nodes, joint, result, this.decidedAlone(alone, result));
    this.applyFileConditions(result);
    return result;
  }

  /**
   * matchAll for many files of one parser at once, read from disk by ast-grep: `files` holds their paths and
   * the text they hold (valid UTF-8). `onFile` gets each file's matches (without a tree when no rule matches
   * it) as soon as they are known, in no set order: it should take what it needs from the nodes and let go of
   * them, so that their trees go with the next minor garbage collection rather than pile up in the old space.
   */
  async matchFiles(parser: ParserName, files: { path: string; text: string }[], onFile: (index: number, matches: FileMatches | Error) => void): Promise<void> {
    const holds = files.map((f) => holdsOf(f.text));
    let { joint, alone } = this.split(parser, holds);
    const done = new Set<number>();
    const finish = (f: number, hits: SgNode[] | undefined) => {
      done.add(f);
      let matches: FileMatches | Error;
      try {
        const needsRoot = alone.some((i) => this.feasible[i](holds[f]));
        const root = hits?.[0]?.getRoot().root() ?? (needsRoot ? parse(astGrepLang(parser) as never, files[f].text).root() : undefined);
        const found: Found[][] = this.entries.map(() => []);
        if (root) for (const i of alone) if (this.feasible[i](holds[f])) found[i] = findAllOf(root, this.entries[i]);
        if (hits) this.sort(hits, joint, found, this.decidedAlone(alone, found));
        this.applyFileConditions(found);
        matches = { root, found };
      } catch (error) {
        matches = error as Error;
      }
      onFile(f, matches);
    };
    const indexOf = new Map(files.map((file, f) => [file.path, f]));
    const findJoint = () =>
      findInFilesOf(parser, [...indexOf.keys()], this.joinedRule(joint), (path, nodes) => {
        const f = indexOf.get(path);
        if (f !== undefined && !done.has(f)) finish(f, nodes);
      });
    if (joint.length) {
      try {
        await findJoint().catch(async (error: unknown) => {
          // A rule that does not fit the grammar fails the joined rule before any file is matched.
          if (this.valid.has(parser) || done.size) throw error;
          ({ joint, alone } = this.split(parser, holds, true));
          if (joint.length) await findJoint();
        });
      } catch {
        // Should the joined rule fail where its parts do not, fall back to one walk per rule in each file.
        for (let f = 0; f < files.length; f++) {
          if (done.has(f)) continue;
          done.add(f);
          let matches: FileMatches | Error;
          try {
            const root = parse(astGrepLang(parser) as never, files[f].text).root();
            matches = { root, found: this.matchAll(root, files[f].text, parser) };
          } catch (error) {
            matches = error as Error;
          }
          onFile(f, matches);
        }
      }
    }
    for (let f = 0; f < files.length; f++) if (!done.has(f)) finish(f, undefined);
  }
}

function findFirst(node: SgNode, entry: MatcherRule): SgNode | null {
  try {
    return node.find({ rule: entry.rule, constraints: entry.constraints } as never);
  } catch {
    return null;
  }
}

/** One findInFiles call: `onFile` gets the nodes `config` matches in each of `paths` that it matches at all. */
function findInFilesOf(parser: ParserName, paths: string[], config: JoinedRule, onFile: (path: string, nodes: SgNode[]) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let received = 0;
    let expected = -1;
    let failure: unknown;
    const settle = () => (failure === undefined ? resolve() : reject(failure as Error));
    const callback = (error: Error | null, nodes: SgNode[]) => {
      received++;
      try {
        if (!error && nodes.length && failure === undefined) onFile(nodes[0].getRoot().filename(), nodes);
      } catch (thrown) {
        failure = thrown;
      }
      if (received === expected) settle();
    };
    // The promise gives the number of files sent to the callback, which may still be on their way.
    findInFiles(astGrepLang(parser) as never, { paths, matcher: config as never }, callback).then((count) => {
      expected = count;
      if (received >= expected) settle();
    }, reject);
  });
}

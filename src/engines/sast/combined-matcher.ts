import { parse, type SgNode } from '@ast-grep/napi';
import { astGrepLang, type ParserName } from '../../languages/index.ts';
import type { AstRule } from './rule-set.ts';

// Every ast-grep rule a file is checked against (pattern rules, taint sinks, sources, sanitizers) in one walk
// of its tree instead of one walk per rule: the rules that can match the file's text are joined in one `any`,
// each branch tagged with metavariables that spell its number in binary, so every node found tells which rule
// found it. `any` stops at its first matching branch, so a second walk with the branches reversed tells the
// last one; the rare node that more rules match is checked against those between one by one.

export interface MatcherRule {
  rule: AstRule;
  /** Metavariable constraints of a pattern rule; such a rule is matched on its own, as its names may clash. */
  constraints?: Record<string, AstRule>;
}

/** Whether a rule can match a text at all: the words its patterns spell out must all be there. */
type Feasible = (text: string) => boolean;

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
  if (typeof r.pattern === 'string') parts.push(wordsFeasible(literalWords(r.pattern)));
  else if (r.pattern && typeof r.pattern === 'object' && typeof (r.pattern as { context?: unknown }).context === 'string') {
    parts.push(wordsFeasible(literalWords((r.pattern as { context: string }).context)));
  }
  for (const relation of RELATIONS) if (r[relation]) parts.push(feasibility(r[relation]));
  if (Array.isArray(r.all)) parts.push(...r.all.map(feasibility));
  if (Array.isArray(r.any)) {
    const branches = r.any.map(feasibility);
    if (!branches.includes(ALWAYS)) parts.push((text) => branches.some((f) => f(text)));
  }
  const specific = parts.filter((p) => p !== ALWAYS);
  if (!specific.length) return ALWAYS;
  return specific.length === 1 ? specific[0] : (text) => specific.every((f) => f(text));
}

function wordsFeasible(words: string[]): Feasible {
  const unique = [...new Set(words)];
  return unique.length ? (text) => unique.every((word) => text.includes(word)) : ALWAYS;
}

const TAG = 'BWKTAG';

function tagged(rule: AstRule, tag: number): AstRule {
  const bits: AstRule[] = [];
  for (let bit = 0; tag >> bit; bit++) if ((tag >> bit) & 1) bits.push({ pattern: `$${TAG}${bit}` });
  return { all: [rule, ...bits] };
}

function tagOf(node: SgNode, bits: number): number {
  let tag = 0;
  for (let bit = 0; bit < bits; bit++) if (node.getMatch(`${TAG}${bit}`)) tag |= 1 << bit;
  return tag;
}

/** Runs one rule the way a scan always has: a rule that does not fit the grammar matches nothing. */
function findAllOf(root: SgNode, entry: MatcherRule): SgNode[] {
  try {
    return root.findAll({ rule: entry.rule, constraints: entry.constraints } as never);
  } catch {
    return [];
  }
}

/** A fixed list of rules, checked against files together; build it once and reuse it for every file. */
export class CombinedMatcher {
  private readonly entries: MatcherRule[];
  private readonly feasible: Feasible[];
  /** Per parser, whether each rule compiles for it (a JavaScript pattern may not parse as TSX). */
  private readonly valid = new Map<ParserName, boolean[]>();

  constructor(entries: MatcherRule[]) {
    this.entries = entries;
    this.feasible = entries.map((e) => feasibility(e.rule));
  }

  get size(): number {
    return this.entries.length;
  }

  private validFor(parser: ParserName): boolean[] {
    let valid = this.valid.get(parser);
    if (!valid) {
      const empty = parse(astGrepLang(parser) as never, '').root();
      valid = this.entries.map((entry) => {
        try {
          empty.findAll({ rule: entry.rule, constraints: entry.constraints } as never);
          return true;
        } catch {
          return false;
        }
      });
      this.valid.set(parser, valid);
    }
    return valid;
  }

  /**
   * For each rule (by its index in the list), the nodes it matches in `root`, in the order a walk of the tree
   * meets them, each carrying that rule's metavariables. `only` limits the work to some of the rules.
   */
  matchAll(root: SgNode, text: string, parser: ParserName, only?: (index: number) => boolean): SgNode[][] {
    const result: SgNode[][] = this.entries.map(() => []);
    const valid = this.validFor(parser);
    const live: number[] = [];
    for (let i = 0; i < this.entries.length; i++) {
      if (!valid[i] || (only && !only(i)) || !this.feasible[i](text)) continue;
      if (this.entries[i].constraints) result[i] = findAllOf(root, this.entries[i]);
      else live.push(i);
    }
    if (!live.length) return result;
    try {
      this.matchTogether(root, live, result);
    } catch {
      // Should the joined rule fail where its parts do not, fall back to one walk per rule.
      for (const i of live) result[i] = findAllOf(root, this.entries[i]);
    }
    return result;
  }

  private matchTogether(root: SgNode, live: number[], result: SgNode[][]): void {
    const bits = Math.floor(Math.log2(live.length)) + 1;
    const first = root.findAll({ rule: { any: live.map((i, k) => tagged(this.entries[i].rule, k + 1)) } } as never);
    if (!first.length) return;
    const found: { node: SgNode; order: number; k: number }[] = [];
    const firstTag = new Map<number, { node: SgNode; order: number; k: number }>();
    let lowest = live.length;
    first.forEach((node, order) => {
      const k = tagOf(node, bits) - 1;
      const hit = { node, order, k };
      found.push(hit);
      firstTag.set(node.id(), hit);
      lowest = Math.min(lowest, k);
    });
    // The last rule matching each node: the branches after the lowest first one, in reverse.
    const rest: number[] = [];
    for (let k = live.length - 1; k > lowest; k--) rest.push(k);
    if (rest.length) {
      const last = root.findAll({ rule: { any: rest.map((k) => tagged(this.entries[live[k]].rule, k + 1)) } } as never);
      for (const node of last) {
        const hit = firstTag.get(node.id());
        if (!hit) continue;
        const k = tagOf(node, bits) - 1;
        if (k <= hit.k) continue;
        for (let between = hit.k + 1; between < k; between++) {
          const again = node.find({ rule: this.entries[live[between]].rule } as never);
          if (again && again.id() === node.id()) found.push({ node: again, order: hit.order, k: between });
        }
        found.push({ node, order: hit.order, k });
      }
    }
    found.sort((a, b) => a.order - b.order);
    for (const hit of found) result[live[hit.k]].push(hit.node);
  }
}

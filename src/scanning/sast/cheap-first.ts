import type { AstRule } from './rule-set.ts';

// ast-grep checks the parts of a rule object in a fixed order, whatever order the YAML writes them in: the
// atomic ones (pattern, kind, regex, …), then the composite ones (all, any, not, matches), then the relational
// ones (inside, has, precedes, follows). A rule such as
//   kind: pair
//   has: { field: key, regex: "^__html$" }
//   inside: { kind: program, regex: "…", stopBy: end }
// thus runs its regex over the whole file for every pair, and a `not: { inside: { stopBy: end, … } }` walks
// the whole tree for every call, before the look at the node's own children that rejects nearly all of them.
// cheapFirst() moves such a look (a `has` or `inside` that goes no further than the node's children or
// parent) first, right after the atomic parts. A part that neither binds nor reads a metavariable gives the
// same answer wherever it stands in a conjunction, so only those are moved: what the rule matches, and what
// its metavariables capture, stay the same.

const ATOMIC = ['pattern', 'kind', 'regex', 'nthChild', 'range'];
const COMPOSITE_LISTS = ['all', 'any'];
const RELATIONAL = ['inside', 'has', 'precedes', 'follows'];
/** Keys of a relational rule's object that are options of the relation, not parts of the rule it applies. */
const RELATION_OPTIONS = new Set(['stopBy', 'field']);
/** A metavariable in a pattern ($X, $$$ARGS, $_): a pattern without one binds and reads nothing. */
const METAVARIABLE = /\$[A-Z_]/;

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

/** Whether a rule binds or reads no metavariable: its patterns have none, and it names no utility rule. */
export function withoutMetavariables(rule: unknown): boolean {
  if (Array.isArray(rule)) return rule.every(withoutMetavariables);
  if (!isObject(rule)) return true;
  for (const [key, value] of Object.entries(rule)) {
    if (key === 'matches') return false;
    if (key === 'pattern') {
      const text = typeof value === 'string' ? value : isObject(value) ? `${String(value.context ?? '')} ${String(value.selector ?? '')}` : '';
      if (METAVARIABLE.test(text)) return false;
    } else if (!withoutMetavariables(value)) return false;
  }
  return true;
}

/** Whether a relational part looks no further than the node's children (`has`) or parent (`inside`). */
function staysNear(key: string, relation: unknown): boolean {
  if (key !== 'has' && key !== 'inside') return false;
  if (!isObject(relation)) return false;
  return relation.stopBy === undefined || relation.stopBy === 'neighbor';
}

/** A relational part with the rule it applies put cheap-first, its options (stopBy, field) kept as they are. */
function relationCheapFirst(relation: unknown): unknown {
  if (!isObject(relation)) return relation;
  const options: Record<string, unknown> = {};
  const rule: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(relation)) (RELATION_OPTIONS.has(key) ? options : rule)[key] = value;
  return { ...options, ...(cheapFirst(rule) as Record<string, unknown>) };
}

/** Whether a rule walks further than a node's children or parent somewhere (a relation with `stopBy`). */
function reachesFar(rule: unknown): boolean {
  if (Array.isArray(rule)) return rule.some(reachesFar);
  if (!isObject(rule)) return false;
  return Object.entries(rule).some(([key, value]) => (RELATIONAL.includes(key) && isObject(value) && value.stopBy !== undefined && value.stopBy !== 'neighbor') || reachesFar(value));
}

/**
 * The parts of an `all` with those that walk far and neither bind nor read a metavariable put last: `all`
 * checks its parts in order and stops at the first that fails, and such a part answers the same wherever
 * it stands.
 */
function farLast(parts: AstRule[]): AstRule[] {
  const late = (part: AstRule) => reachesFar(part) && withoutMetavariables(part);
  return [...parts.filter((part) => !late(part)), ...parts.filter(late)];
}

/**
 * `rule` with the same matches, its nearby metavariable-free `has` and `inside` checked before the rest, and
 * the far-walking parts of its `all` lists after the others.
 */
export function cheapFirst(rule: AstRule): AstRule {
  if (!isObject(rule)) return rule;
  const inner: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rule)) {
    if (key === 'all' && Array.isArray(value)) inner[key] = farLast(value.map((r) => cheapFirst(r as AstRule)));
    else if (COMPOSITE_LISTS.includes(key) && Array.isArray(value)) inner[key] = value.map((r) => cheapFirst(r as AstRule));
    else if (key === 'not' && isObject(value)) inner[key] = cheapFirst(value);
    else if (RELATIONAL.includes(key)) inner[key] = relationCheapFirst(value);
    else inner[key] = value;
  }
  const early = Object.keys(inner).filter((key) => staysNear(key, inner[key]) && withoutMetavariables(inner[key]));
  if (!early.length) return inner;
  const atomic = Object.fromEntries(Object.entries(inner).filter(([key]) => ATOMIC.includes(key)));
  const rest = Object.fromEntries(Object.entries(inner).filter(([key]) => !ATOMIC.includes(key) && !early.includes(key)));
  // Nothing to overtake: ast-grep already checks these right after the atomic parts.
  const overtakes = Object.keys(rest).some((key) => !RELATIONAL.includes(key) || (key === 'inside' && early.includes('has')));
  if (!overtakes) return inner;
  const parts: AstRule[] = [];
  if (Object.keys(atomic).length) parts.push(atomic);
  for (const key of early) parts.push({ [key]: inner[key] });
  if (Object.keys(rest).length) parts.push(rest);
  return { all: parts };
}

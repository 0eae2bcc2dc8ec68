import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { argumentsOf, functionAround, statementOf } from '../edit-kit.ts';
import { isLiteral, normalizeParts, type Part } from '../built-string.ts';

// Python strings as the codemods read and write them: a built string into parts, a local variable back
// to the one statement that built it, and text back into a Python literal.

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };

function decode(raw: string): string {
  return raw.replace(/\\(x[0-9a-fA-F]{2}|.)/gs, (_, e: string) => (e[0] === 'x' ? String.fromCharCode(parseInt(e.slice(1), 16)) : (ESCAPES[e] ?? `\\${e}`)));
}

/** A string literal (plain or f-string) as parts; null for bytes, or f-strings with conversions or format specs. */
function stringParts(node: SgNode): Part[] | null {
  const children = node.children();
  const prefix = (children[0]?.text() ?? '').replace(/['"]+$/, '').toLowerCase();
  if (prefix.includes('b')) return null;
  const raw = prefix.includes('r');
  const fString = prefix.includes('f');
  const parts: Part[] = [];
  for (const child of children.slice(1, -1)) {
    if (kindOf(child) === 'string_content') {
      let content = child.text();
      if (fString) content = content.replaceAll('{{', '{').replaceAll('}}', '}');
      parts.push({ literal: raw ? content : decode(content) });
    } else if (kindOf(child) === 'interpolation') {
      if (child.children().some((c) => ['type_conversion', 'format_specifier'].includes(kindOf(c)))) return null;
      const expression = fieldOf(child, 'expression') ?? child.children().find((c) => c.isNamed());
      if (!expression) return null;
      parts.push({ expr: expression.text() });
    } else return null;
  }
  return parts;
}

export function isStringNode(node: SgNode): boolean {
  return kindOf(node) === 'string' || kindOf(node) === 'concatenated_string';
}

/** How a Python expression builds a string, as parts; null when it is not built in a way read here. */
export function builtParts(node: SgNode, constant: (name: string) => SgNode | null = () => null): Part[] | null {
  const kind = kindOf(node);
  if (kind === 'parenthesized_expression') {
    const inner = node.children().find((c) => c.isNamed());
    return inner ? builtParts(inner, constant) : null;
  }
  if (kind === 'string') return stringParts(node);
  if (kind === 'concatenated_string') {
    const parts = node.children().filter((c) => kindOf(c) === 'string').map(stringParts);
    return parts.some((p) => p === null) ? null : normalizeParts(parts.flat() as Part[]);
  }
  if (kind === 'binary_operator') {
    const operator = fieldOf(node, 'operator')?.text();
    const left = fieldOf(node, 'left')!;
    const right = fieldOf(node, 'right')!;
    if (operator === '+') {
      const a = builtParts(left, constant) ?? [{ expr: left.text() }];
      const b = builtParts(right, constant) ?? [{ expr: right.text() }];
      return normalizeParts([...a, ...b]);
    }
    if (operator === '%') {
      const template = literalText(left, constant);
      return template === null ? null : percentFormat(template, right);
    }
    return null;
  }
  if (kind === 'call') {
    const fn = fieldOf(node, 'function');
    if (!fn || kindOf(fn) !== 'attribute' || fieldOf(fn, 'attribute')?.text() !== 'format') return null;
    const template = literalText(fieldOf(fn, 'object')!, constant);
    return template === null ? null : braceFormat(template, argumentsOf(node));
  }
  if (kind === 'identifier') {
    const value = constant(node.text());
    return value && isStringNode(value) ? builtParts(value) : null;
  }
  return null;
}

/** The text of a literal without values (a constant's value when it names a module-level string). */
function literalText(node: SgNode, constant: (name: string) => SgNode | null): string | null {
  const target = kindOf(node) === 'identifier' ? constant(node.text()) : node;
  if (!target) return null;
  const parts = builtParts(target);
  return parts && parts.every(isLiteral) ? parts.map((p) => (p as { literal: string }).literal).join('') : null;
}

function percentFormat(template: string, values: SgNode): Part[] | null {
  let inner = values;
  while (kindOf(inner) === 'parenthesized_expression') inner = inner.children().find((c) => c.isNamed())!;
  const positional = kindOf(inner) === 'tuple' ? inner.children().filter((c) => c.isNamed()) : [inner];
  const named = kindOf(inner) === 'dictionary' ? inner.children().filter((c) => kindOf(c) === 'pair') : [];
  const parts: Part[] = [];
  let next = 0;
  let last = 0;
  const pattern = /%(\((\w+)\))?([-#0 +]*\d*(?:\.\d+)?)([sdirf%])/g;
  for (let m = pattern.exec(template); m; m = pattern.exec(template)) {
    parts.push({ literal: template.slice(last, m.index) });
    last = m.index + m[0].length;
    if (m[4] === '%') {
      parts.push({ literal: '%' });
      continue;
    }
    if (m[3] || m[4] === 'r') return null;
    if (m[2]) {
      const pair = named.find((p) => fieldOf(p, 'key')?.text().slice(1, -1) === m![2]);
      if (!pair) return null;
      parts.push({ expr: fieldOf(pair, 'value')!.text() });
    } else {
      if (named.length) return null;
      const value = positional[next++];
      if (!value) return null;
      parts.push({ expr: m[4] === 's' ? value.text() : `${m[4] === 'f' ? 'float' : 'int'}(${value.text()})` });
    }
  }
  if (!named.length && next !== positional.length) return null;
  parts.push({ literal: template.slice(last) });
  return normalizeParts(parts);
}

function braceFormat(template: string, args: SgNode[]): Part[] | null {
  const positional = args.filter((a) => kindOf(a) !== 'keyword_argument');
  if (args.some((a) => kindOf(a) === 'list_splat' || kindOf(a) === 'dictionary_splat')) return null;
  const keyword = (name: string) => args.find((a) => kindOf(a) === 'keyword_argument' && fieldOf(a, 'name')?.text() === name);
  const parts: Part[] = [];
  let next = 0;
  let last = 0;
  const pattern = /\{\{|\}\}|\{(\w*)\}|\{[^}]*\}/g;
  for (let m = pattern.exec(template); m; m = pattern.exec(template)) {
    parts.push({ literal: template.slice(last, m.index) });
    last = m.index + m[0].length;
    if (m[0] === '{{' || m[0] === '}}') {
      parts.push({ literal: m[0][0]! });
      continue;
    }
    if (m[1] === undefined) return null;
    const named = m[1] && !/^\d+$/.test(m[1]) ? keyword(m[1]) : undefined;
    const value = m[1] === '' ? positional[next++] : named ? fieldOf(named, 'value') : positional[Number(m[1])];
    if (!value) return null;
    parts.push({ expr: value.text() });
  }
  parts.push({ literal: template.slice(last) });
  return normalizeParts(parts);
}

/** A module-level `NAME = <string>` of the file, for format strings kept in constants. */
export function moduleConstant(root: SgNode, name: string): SgNode | null {
  for (const statement of root.children()) {
    const assignment = statement.child(0);
    if (kindOf(statement) !== 'expression_statement' || !assignment || kindOf(assignment) !== 'assignment') continue;
    if (fieldOf(assignment, 'left')?.text() === name) return fieldOf(assignment, 'right');
  }
  return null;
}

/**
 * Where a local variable passed to a sink got its value: the one assignment to it in the same function
 * before the sink, when nothing else reads or writes it there. Null otherwise.
 */
export function soleAssignment(variable: SgNode, use: SgNode): { statement: SgNode; value: SgNode } | null {
  const scope = functionAround(use);
  if (!scope) return null;
  const name = variable.text();
  // `os.path` or `f(path=…)` name an attribute or a parameter, not the variable
  const mentions = scope.findAll({ rule: { kind: 'identifier', regex: `^${name}$` } as never }).filter((m) => {
    const parent = m.parent();
    const at = m.range().start.index;
    return !parent || !['attribute', 'keyword_argument'].includes(kindOf(parent)) || (fieldOf(parent, kindOf(parent) === 'attribute' ? 'attribute' : 'name')?.range().start.index !== at);
  });
  const assignments = mentions.filter((m) => {
    const parent = m.parent();
    return parent && kindOf(parent) === 'assignment' && fieldOf(parent, 'left')?.range().start.index === m.range().start.index;
  });
  if (assignments.length !== 1) return null;
  const assignment = assignments[0]!.parent()!;
  if (mentions.length !== 2 || assignment.range().end.index > use.range().start.index) return null;
  const value = fieldOf(assignment, 'right');
  if (!value || kindOf(fieldOf(assignment, 'left')!) !== 'identifier') return null;
  return { statement: statementOf(assignment), value };
}

/** A Python string literal for `text`, in the quotes `like` used (a triple-quoted one stays triple-quoted). */
export function pythonString(text: string, like = '"'): string {
  const triple = /^[a-zA-Z]*("""|''')/.test(like) && text.includes('\n');
  const quote = like.replace(/^[a-zA-Z]*/, '')[0] === "'" ? "'" : '"';
  if (triple) return `${quote.repeat(3)}${text.replaceAll('\\', '\\\\').replaceAll(quote.repeat(3), `\\${quote}`.repeat(3))}${quote.repeat(3)}`;
  const q = text.includes(quote) && !text.includes(quote === '"' ? "'" : '"') ? (quote === '"' ? "'" : '"') : quote;
  return `${q}${escapedFor(text, q)}${q}`;
}

/** Text as the body of a one-line string literal written in `quote`. */
function escapedFor(text: string, quote: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll(quote, `\\${quote}`).replaceAll('\n', '\\n').replaceAll('\t', '\\t').replaceAll('\r', '\\r');
}

/**
 * An expression joining literal text and values into one string when it has both: an f-string, or, for code
 * that must run on a Python older than 3.6 (`fStrings: false`), the same text through str.format(), which
 * formats each value as an f-string field does.
 */
export function pythonJoin(pieces: Part[], like = '"', { fStrings = true } = {}): string {
  if (pieces.length === 1 && !isLiteral(pieces[0]!)) return pieces[0]!.expr;
  if (pieces.every(isLiteral)) return pythonString(pieces.map((p) => (p as { literal: string }).literal).join(''), like);
  // Before Python 3.12 a field may not hold the quote its f-string is written in.
  const quote = fStrings && pieces.some((p) => !isLiteral(p) && p.expr.includes('"')) ? "'" : '"';
  const literal = (text: string) => escapedFor(text, quote).replaceAll('{', '{{').replaceAll('}', '}}');
  if (!fStrings) {
    const body = pieces.map((p) => (isLiteral(p) ? literal(p.literal) : '{}')).join('');
    const values = pieces.filter((p) => !isLiteral(p)).map((p) => (p as { expr: string }).expr);
    return `${quote}${body}${quote}.format(${values.join(', ')})`;
  }
  const body = pieces.map((p) => (isLiteral(p) ? literal(p.literal) : `{${p.expr}}`)).join('');
  return `f${quote}${body}${quote}`;
}

/** The opening quotes of the first string literal in a node, to write new literals alike. */
export function quoteStyle(node: SgNode): string {
  const first = kindOf(node) === 'string' ? node : node.find({ rule: { kind: 'string' } as never });
  return first?.child(0)?.text() ?? '"';
}

/**
 * The parts of a value a sink receives: built where it is passed, or, for a variable, by its sole
 * assignment (`origin`). `reassigned` when the variable is assigned more than once or used elsewhere.
 */
export function builtValue(
  value: SgNode,
  use: SgNode,
  constant: (name: string) => SgNode | null,
): { parts: Part[] | null; target: SgNode; origin?: { statement: SgNode; value: SgNode } } | { reassigned: true } {
  const parts = builtParts(value, constant);
  if (parts || kindOf(value) !== 'identifier') return { parts, target: value };
  const origin = soleAssignment(value, use);
  if (!origin) return { reassigned: true };
  return { parts: builtParts(origin.value, constant), target: origin.value, origin };
}

/** The identifiers a value expression reads. */
export function namesRead(variables: { expr: string }[]): Set<string> {
  const names = new Set<string>();
  for (const v of variables) for (const m of v.expr.matchAll(/(?<![.\w])[A-Za-z_]\w*/g)) names.add(m[0]);
  return names;
}

/** Whether one of `names` is bound again between two offsets of the scope. */
export function reboundBetween(scope: SgNode, from: number, to: number, names: Set<string>): boolean {
  const kinds = ['assignment', 'augmented_assignment', 'for_statement', 'named_expression'];
  return scope.findAll({ rule: { any: kinds.map((kind) => ({ kind })) } } as never).some((bind) => {
    const at = bind.range().start.index;
    if (at <= from || at >= to) return false;
    const target = fieldOf(bind, 'left') ?? fieldOf(bind, 'name');
    return !!target && [target, ...target.findAll({ rule: { kind: 'identifier' } } as never)].some((n) => kindOf(n) === 'identifier' && names.has(n.text()));
  });
}

/**
 * A name for the variable a built string's value expression becomes: the expression's own name, its last
 * attribute or key, else value<n>; suffixed where `reserved` (names the receiving API keeps) or an earlier
 * variable has it.
 */
export function variableNameFor(expr: string, taken: Set<string>, index: number, reserved: ReadonlySet<string>): string {
  const inner = expr.replace(/^(?:str|int|float)\((.*)\)$/s, '$1');
  const base =
    /^[A-Za-z_]\w*$/.exec(inner)?.[0] ??
    /\.([A-Za-z_]\w*)$/.exec(inner)?.[1] ??
    /\[\s*["']([A-Za-z_]\w*)["']\s*\]$/.exec(inner)?.[1] ??
    /\.get\(\s*["']([A-Za-z_]\w*)["'][^()]*\)$/.exec(inner)?.[1] ??
    `value${index + 1}`;
  let name = reserved.has(base) ? `${base}_value` : base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

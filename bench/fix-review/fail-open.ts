// Credential reads that fail open: a secret or key taken from the environment (or a config mapping) with a
// lookup that answers None (Python) or undefined (JavaScript) when the variable is unset, at import time,
// with nothing that stops the application starting without it; and any comparison with such a lookup,
// which passes when both sides are missing. `os.environ["X"]` (KeyError), a default that is a real value,
// or a module-level `if not X: raise …` / `if (!X) throw …` is not one.
import type { SgNode } from '@ast-grep/napi';
import { codeParserFor, fieldOf, parseCode } from '../../src/fixing/fixers/shared/syntax.ts';

export interface FailOpenRead {
  line: number;
  /** What the value reaches: `SECRET_KEY`, `app.config['SECRET_KEY']`, `secret:`, `==`. */
  sink: string;
  /** The environment variable or key read. */
  variable: string;
  how: 'setting' | 'comparison';
  message: string;
}

const IGNORED_LAST_WORDS = new Set(['id', 'name', 'file', 'path', 'dir', 'url', 'uri', 'prefix', 'len', 'length', 'size', 'type', 'header', 'location', 'expires', 'ttl', 'lifetime', 'algorithm', 'algorithms', 'field', 'column', 'table', 'timeout', 'age']);
const SECRET_WORDS = new Set(['secret', 'secrets', 'password', 'passwd', 'pwd', 'pass', 'passphrase', 'token', 'key', 'keys', 'apikey', 'salt', 'credential', 'credentials', 'pepper', 'pw']);

/** Whether a name (SECRET_KEY, app.secret_key, jwtSecret, session secret:) names a credential. */
export function namesSecret(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (!words.length || words.includes('public') || words.includes('publishable')) return false;
  if (IGNORED_LAST_WORDS.has(words[words.length - 1]!)) return false;
  return words.some((w) => SECRET_WORDS.has(w));
}

interface Dialect {
  deferred: Set<string>;
  /** The read's variable name and whether it can come back empty, or null when the node is no such read. */
  read(node: SgNode): { variable: string; empty: boolean } | null;
  /** Whether a fallback operand keeps the value missing (None, '', another such read). */
  emptyFallback(node: SgNode): boolean;
  /** Nodes the value passes through unchanged (parentheses, str(), TypeScript's `!` and `as`). */
  passes(node: SgNode, parent: SgNode): boolean;
  fallbacks: { kind: string; operators: string[] };
  sink(node: SgNode, parent: SgNode): { sink: string; how: 'setting' | 'comparison' | 'argument' } | null;
  /** The names a read is bound to at module level, when the sink is a plain name (for following its uses). */
  identifier: string;
  guards: { statement: string; condition: string; body: string; exits: RegExp; asserts: object };
  reads(root: SgNode): SgNode[];
}

const stringContent = (node: SgNode | null | undefined): string | null => {
  if (!node || node.kind() !== 'string') return null;
  const m = /^[rbuRBU]*(["'`])([^"'`\\]*)\1$/.exec(node.text()) ?? /^[rbuRBU]*("""|''')([^\\]*?)\1$/.exec(node.text());
  return m ? m[2]! : null;
};

const PY_LITERALS = new Set(['string', 'concatenated_string', 'integer', 'float', 'true', 'false', 'none']);
const JS_LITERALS = new Set(['string', 'number', 'true', 'false', 'null']);

const PY_GETTER = /^(?:(?:os\.)?(?:environ\.get|getenv)|(?:[\w.]+\.)?(?:config|settings|conf|env|environ)\.get)$/i;

function argumentsOf(call: SgNode): SgNode[] {
  return (call.field('arguments')?.children() ?? []).filter((c) => c.isNamed() && c.kind() !== 'comment');
}

const python: Dialect = {
  deferred: new Set(['function_definition', 'lambda']),
  reads: (root) => root.findAll({ rule: { kind: 'call' } }),
  read(node) {
    if (node.kind() !== 'call') return null;
    const callee = node.field('function')?.text().replace(/\s+/g, '');
    if (!callee || !PY_GETTER.test(callee)) return null;
    const args = argumentsOf(node);
    const positional = args.filter((a) => a.kind() !== 'keyword_argument');
    const keyword = args.find((a) => a.kind() === 'keyword_argument' && ['default', 'failobj'].includes(a.field('name')?.text() ?? ''));
    if (!positional.length || positional.length > 2) return null;
    const fallback = positional[1] ?? keyword?.field('value') ?? null;
    const empty = !fallback || python.emptyFallback(fallback);
    return { variable: stringContent(positional[0]) ?? positional[0]!.text(), empty };
  },
  emptyFallback(node) {
    if (node.kind() === 'none') return true;
    if (stringContent(node) === '') return true;
    const read = python.read(node);
    return !!read?.empty;
  },
  passes(node, parent) {
    if (parent.kind() === 'parenthesized_expression') return true;
    if (parent.kind() === 'conditional_expression') return true;
    if (parent.kind() === 'argument_list') {
      const call = parent.parent();
      return !!call && call.field('function')?.text() === 'str' && argumentsOf(call).length === 1;
    }
    return false;
  },
  fallbacks: { kind: 'boolean_operator', operators: ['or'] },
  sink(node, parent) {
    const kind = parent.kind();
    if (kind === 'assignment' && parent.field('right')?.id() === node.id()) {
      const left = parent.field('left')!;
      if (left.kind() === 'identifier') return { sink: left.text(), how: 'setting' };
      if (left.kind() === 'attribute') return { sink: left.text(), how: 'setting' };
      if (left.kind() === 'subscript') return { sink: left.text(), how: 'setting' };
      return null;
    }
    if (kind === 'keyword_argument') return { sink: `${parent.field('name')?.text()}=`, how: 'setting' };
    if (kind === 'pair') return { sink: `${stringContent(parent.field('key')) ?? parent.field('key')?.text()}:`, how: 'setting' };
    if (kind === 'comparison_operator') {
      const operators = parent.children().filter((c) => !c.isNamed()).map((c) => c.text());
      // FLAG == "1" is false when FLAG is missing: only a value that can itself be missing compares equal
      const others = parent.namedChildren().filter((c) => c.id() !== node.id());
      if (others.every((c) => PY_LITERALS.has(String(c.kind())))) return null;
      return operators.some((o) => o === '==' || o === '!=') ? { sink: operators.join(' '), how: 'comparison' } : null;
    }
    if (kind === 'argument_list') {
      const callee = parent.parent()?.field('function')?.text() ?? '';
      return /compare_digest$/.test(callee) ? { sink: `${callee}()`, how: 'comparison' } : { sink: `${callee}()`, how: 'argument' };
    }
    return null;
  },
  identifier: 'identifier',
  guards: { statement: 'if_statement', condition: 'condition', body: 'consequence', exits: /^\s*raise\b|\b(?:sys\.exit|exit|os\._exit|abort)\s*\(/m, asserts: { kind: 'assert_statement' } },
};

const JS_ENV = /^process\.env$/;

const javascript: Dialect = {
  deferred: new Set(['function_declaration', 'function_expression', 'arrow_function', 'method_definition', 'generator_function_declaration', 'generator_function', 'class_body']),
  reads: (root) => root.findAll({ rule: { any: [{ kind: 'member_expression' }, { kind: 'subscript_expression' }, { kind: 'shorthand_property_identifier_pattern' }, { kind: 'pair_pattern' }] } }),
  read(node) {
    const kind = node.kind();
    if (kind === 'member_expression' && JS_ENV.test(node.field('object')?.text().replace(/\s+/g, '') ?? '')) return { variable: node.field('property')!.text(), empty: true };
    if (kind === 'subscript_expression' && JS_ENV.test(node.field('object')?.text().replace(/\s+/g, '') ?? '')) {
      const index = node.field('index');
      return { variable: stringContent(index) ?? index?.text() ?? '?', empty: true };
    }
    // const { JWT_SECRET } = process.env; const { JWT_SECRET: secret } = process.env
    if (kind === 'shorthand_property_identifier_pattern' || kind === 'pair_pattern') {
      const pattern = node.parent();
      const declarator = pattern?.parent();
      if (pattern?.kind() !== 'object_pattern' || declarator?.kind() !== 'variable_declarator') return null;
      if (!JS_ENV.test(declarator.field('value')?.text().replace(/\s+/g, '') ?? '')) return null;
      return { variable: kind === 'pair_pattern' ? node.field('key')!.text() : node.text(), empty: true };
    }
    return null;
  },
  emptyFallback(node) {
    const text = node.text();
    if (text === 'undefined' || text === 'null' || stringContent(node) === '') return true;
    return !!javascript.read(node);
  },
  passes(node, parent) {
    const kind = String(parent.kind());
    if (['parenthesized_expression', 'non_null_expression', 'as_expression', 'satisfies_expression', 'ternary_expression'].includes(kind)) return true;
    if (kind === 'arguments') {
      const call = parent.parent();
      return !!call && call.field('function')?.text() === 'String' && parent.namedChildren().length === 1;
    }
    return false;
  },
  fallbacks: { kind: 'binary_expression', operators: ['||', '??'] },
  sink(node, parent) {
    const kind = parent.kind();
    if (node.kind() === 'shorthand_property_identifier_pattern') return { sink: node.text(), how: 'setting' };
    if (node.kind() === 'pair_pattern') return { sink: node.field('value')?.text() ?? node.text(), how: 'setting' };
    if (kind === 'variable_declarator' && parent.field('value')?.id() === node.id()) {
      const name = parent.field('name')!;
      return name.kind() === 'identifier' ? { sink: name.text(), how: 'setting' } : null;
    }
    if (kind === 'assignment_expression' && parent.field('right')?.id() === node.id()) return { sink: parent.field('left')!.text(), how: 'setting' };
    if (kind === 'pair' && parent.field('value')?.id() === node.id()) return { sink: `${stringContent(parent.field('key')) ?? parent.field('key')?.text()}:`, how: 'setting' };
    if (kind === 'binary_expression' && ['==', '===', '!=', '!=='].includes(parent.field('operator')?.text() ?? '')) {
      const other = parent.field('left')?.id() === node.id() ? parent.field('right') : parent.field('left');
      if (other && (JS_LITERALS.has(String(other.kind())) || other.text() === 'undefined')) return null;
      return { sink: parent.field('operator')!.text(), how: 'comparison' };
    }
    if (kind === 'arguments') {
      const callee = parent.parent()?.field('function')?.text() ?? '';
      return /timingSafeEqual$/.test(callee) ? { sink: `${callee}()`, how: 'comparison' } : { sink: `${callee}()`, how: 'argument' };
    }
    return null;
  },
  identifier: 'identifier',
  guards: { statement: 'if_statement', condition: 'condition', body: 'consequence', exits: /\bthrow\b|\bprocess\.exit\s*\(/, asserts: { any: [{ pattern: 'assert($$$)' }, { pattern: 'assert.ok($$$)' }] } },
};

function deferred(dialect: Dialect, node: SgNode): boolean {
  for (let p = node.parent(); p; p = p.parent()) if (dialect.deferred.has(String(p.kind()))) return true;
  return false;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether a statement stops the program when `name` (a binding or the variable) is missing: one outside
 * functions for a read at import time; for a comparison, one anywhere (a check in the handler before it).
 */
function guarded(dialect: Dialect, root: SgNode, names: string[], anywhere = false): boolean {
  const mentions = names.filter(Boolean).map((n) => new RegExp(/^\w+$/.test(n) ? `(?<![\\w.])${escape(n)}\\b|["']${escape(n)}["']` : escape(n)));
  for (const statement of root.findAll({ rule: { kind: dialect.guards.statement } })) {
    if (!anywhere && deferred(dialect, statement)) continue;
    const condition = fieldOf(statement, dialect.guards.condition)?.text() ?? '';
    const body = fieldOf(statement, dialect.guards.body)?.text() ?? '';
    if (mentions.some((m) => m.test(condition)) && dialect.guards.exits.test(body)) return true;
  }
  // assert SECRET_KEY / assert(process.env.X)
  for (const statement of root.findAll({ rule: dialect.guards.asserts as never })) {
    if ((anywhere || !deferred(dialect, statement)) && mentions.some((m) => m.test(statement.text()))) return true;
  }
  return false;
}

/** Walks up from a value through what passes it on unchanged; null when a fallback gives it a real value. */
function climb(dialect: Dialect, start: SgNode): SgNode | null {
  let node = start;
  for (let parent = node.parent(); parent; parent = node.parent()) {
    if (parent.kind() === dialect.fallbacks.kind) {
      const operator = parent.field('operator')?.text() ?? parent.children().find((c) => !c.isNamed())?.text();
      if (!dialect.fallbacks.operators.includes(operator ?? '')) return node;
      const other = parent.field('left')?.id() === node.id() ? parent.field('right') : parent.field('left');
      if (other && !dialect.emptyFallback(other)) return null;
      node = parent;
      continue;
    }
    if (!dialect.passes(node, parent)) return node;
    node = parent.kind() === 'argument_list' || parent.kind() === 'arguments' ? parent.parent()! : parent;
  }
  return node;
}

function dialectFor(file: string): { dialect: Dialect; parser: 'python' | 'javascript' | 'typescript' | 'tsx' } | null {
  const parser = codeParserFor(file);
  if (parser === 'python') return { dialect: python, parser };
  if (parser === 'javascript' || parser === 'typescript' || parser === 'tsx') return { dialect: javascript, parser };
  return null;
}

/** The fail-open credential reads of a Python or JavaScript/TypeScript module. */
export function failOpenReads(file: string, source: string): FailOpenRead[] {
  const chosen = dialectFor(file);
  if (!chosen) return [];
  const { dialect, parser } = chosen;
  let root: SgNode;
  try {
    root = parseCode(parser, source);
  } catch {
    return [];
  }
  const out: FailOpenRead[] = [];
  const seen = new Set<string>();
  const report = (node: SgNode, read: SgNode, variable: string, sink: string, how: FailOpenRead['how'], via?: string) => {
    const line = node.range().start.line + 1;
    const key = `${line}|${variable}|${sink}`;
    if (seen.has(key)) return;
    seen.add(key);
    const missing = dialect === python ? 'None' : 'undefined';
    const lookup = String(read.kind()).endsWith('_pattern') ? `process.env.${variable}` : read.text().replace(/\s+/g, ' ').slice(0, 80);
    const value = `${via ?? lookup}${via ? ` (${via} = ${lookup})` : ''}`;
    const target = sink.endsWith('()') ? `${value} passed to ${sink}` : `${sink}${sink.endsWith('=') || sink.endsWith(':') ? ' ' : ' = '}${value}`;
    const message = how === 'comparison'
      ? `${value} is compared with ${sink}: when ${variable} is unset it is ${missing} or empty, and a missing value on the other side compares equal`
      : `${target} at import time: ${missing} or empty when ${variable} is unset, and nothing stops the application starting without it`;
    out.push({ line, sink, variable, how, message });
  };
  for (const candidate of dialect.reads(root)) {
    const read = dialect.read(candidate);
    if (!read?.empty) continue;
    const top = climb(dialect, candidate);
    const parent = top?.parent();
    if (!top || !parent) continue;
    const found = dialect.sink(top, parent);
    if (!found) continue;
    if (found.how === 'comparison') {
      if (!guarded(dialect, root, [read.variable], true)) report(candidate, candidate, read.variable, found.sink, 'comparison');
      continue;
    }
    if (deferred(dialect, candidate)) continue; // read when called, not at import
    const secret = namesSecret(found.sink) || namesSecret(read.variable);
    const bound = /^[A-Za-z_$][\w$]*$/.test(found.sink) ? found.sink : null;
    if (guarded(dialect, root, [found.sink, read.variable])) continue;
    if (secret) {
      report(candidate, candidate, read.variable, found.sink, 'setting');
      continue;
    }
    // a plain name: follow where it goes (PASSWORD = os.getenv("ADMIN") … if password == PASSWORD)
    if (!bound) continue;
    for (const use of root.findAll({ rule: { kind: dialect.identifier, regex: `^${escape(bound)}$` } })) {
      if (use.range().start.index === candidate.range().start.index) continue;
      const useTop = climb(dialect, use);
      const useParent = useTop?.parent();
      if (!useTop || !useParent) continue;
      const next = dialect.sink(useTop, useParent);
      if (!next || next.sink === bound) continue;
      if (next.how === 'comparison' && !guarded(dialect, root, [bound, read.variable], true)) report(use, candidate, read.variable, next.sink, 'comparison', bound);
      else if (next.how === 'setting' && namesSecret(next.sink) && !deferred(dialect, use)) report(use, candidate, read.variable, next.sink, 'setting', bound);
    }
  }
  return out;
}

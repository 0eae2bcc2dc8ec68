import type { SgNode } from '@ast-grep/napi';
import { codeSyntaxOf, ruleLanguageOf, type CodeSyntax, type RuleLanguage } from '../../../languages/index.ts';
import { envNameForRule, envNameForTarget, toEnvName, targetWord } from './env-names.ts';
import { goOsImport, pythonOsImport } from './env-imports.ts';
import type { LocatedSecret } from './secret-location.ts';
import { deepestNodeCovering, fieldOf, kindOf, parseCode, sameNode, type CodeParser } from '../shared/syntax.ts';
import { applyEdits, newlineOf, type TextEdit } from '../shared/text-edits.ts';
import { requiredRead, softRead, VALUE_SLOT, type FailClosedLanguage, type RequiredRead } from './required-setting.ts';

// A secret in source code becomes a read of the environment: the string literal holding it (or the
// literals joined into one value) is replaced by the language's lookup, named after what the value is
// assigned to. When the literal holds more than the credential (a header, a query), only the credential
// is cut out and the lookup joined in its place. A secret in a comment or a docstring is redacted
// instead, since nothing reads it. In Python and JavaScript a missing or empty variable stops the app
// with a message naming it (see required-setting.ts), never a None or undefined flowing on; elsewhere the
// language's lookup that fails on a missing variable is used where it has one.

export const REDACTED = '<redacted>';

export type CodeSecretResult =
  | { kind: 'environment'; text: string; name: string; lookup: string; stops?: RequiredRead['stops'] }
  | { kind: 'redacted'; text: string }
  | { kind: 'refused'; reason: string };

/** How the variable is to be named: names other values of the file hold, and a name this value already has. */
export interface NameChoice {
  /** Names the file reads for other values, or that other secrets of the file would take. */
  taken: ReadonlySet<string>;
  /** The name this same value was given elsewhere in the file. */
  given?: string;
}

/** Rules whose match is the whole value (a connection URL, a key block): the literal moves as a whole. */
const WHOLE_VALUE_RULES = new Set(['generic-secret-assignment', 'database-url-password', 'url-basic-credentials', 'private-key']);

const CREDENTIAL_WORD = /pass|pwd|secret|token|key|auth|cred|bearer|session|cookie|signature/i;

export function moveSecretInCode(parser: CodeParser, text: string, secret: LocatedSecret, choice: NameChoice = { taken: new Set() }): CodeSecretResult {
  const language = ruleLanguageOf(parser);
  const syntax = codeSyntaxOf(parser)!;
  const root = parseCode(parser, text);
  const covering = deepestNodeCovering(root, secret.start, secret.end);

  if (isComment(covering)) return redact(text, secret);
  const literal = literalValue(covering, syntax);
  if (!literal) return { kind: 'refused', reason: 'the secret is not in a string literal the fixer can replace' };
  if (isStatementByItself(literal, syntax)) return redact(text, secret);
  const constant = constantOnlyContext(literal, syntax);
  if (constant) return { kind: 'refused', reason: `the secret is where ${constant}` };
  const splice = spliceTarget(literal, syntax, secret);
  if (!splice && hasDescendant(literal, syntax.interpolations)) {
    return { kind: 'refused', reason: 'the string holding the secret also interpolates code, so it cannot be replaced as a whole' };
  }
  if (splice && overlapsInterpolation(splice, syntax, secret)) {
    return { kind: 'refused', reason: 'the secret is inside an interpolated expression' };
  }

  const newline = newlineOf(text);
  const osImport = language === 'python' ? pythonOsImport(root, text, newline) : language === 'go' ? goOsImport(root, text, newline) : null;
  const binding = osImport?.binding ?? '';
  const failClosed: FailClosedLanguage | null = language === 'python' || language === 'javascript' ? language : null;
  // Fail-closed languages get a slot the checked read fills in; a fallback removed keeps the code's own read.
  const lookupFor = (name: string) => (failClosed ? VALUE_SLOT : lookupExpression(syntax, parser, name, binding));
  const replaced = splice
    ? spliced(splice, syntax, language, secret, choice, lookupFor)
    : replacement(literal, syntax, language, secret, choice, lookupFor);
  if (failClosed) {
    const ownRead = !replaced.text.includes(VALUE_SLOT);
    const read = ownRead ? replaced.text : softRead(failClosed, replaced.name, binding || 'os');
    const result = requiredRead(failClosed, parser !== 'javascript', text, { node: replaced.node, template: ownRead ? VALUE_SLOT : replaced.text }, replaced.name, read);
    if ('refused' in result) return { kind: 'refused', reason: result.refused };
    // The import goes last: inserted where a hoisted read may be inserted too, it must come before it.
    const edits = [...result.edits];
    if (osImport?.edit && edits.some((e) => e.text.includes(`${binding}.`))) edits.push(osImport.edit);
    return { kind: 'environment', text: applyEdits(text, edits), name: replaced.name, lookup: result.read, stops: result.stops };
  }
  const edits: TextEdit[] = [{ start: replaced.node.range().start.index, end: replaced.node.range().end.index, text: replaced.text }];
  // The lookup may be one the code already had (a fallback removed), which needs nothing new.
  if (osImport?.edit && replaced.text.includes(`${binding}.`)) edits.push(osImport.edit);
  if (language === 'go') {
    const constEdit = goConstToVar(literal);
    if (typeof constEdit === 'string') return { kind: 'refused', reason: constEdit };
    if (constEdit) edits.push(constEdit);
  }
  return { kind: 'environment', text: applyEdits(text, edits), name: replaced.name, lookup: lookupFor(replaced.name) };
}

/** The name a secret of the file would be given by itself (before telling it apart from others), or null. */
export function secretNameInCode(parser: CodeParser, text: string, secret: LocatedSecret): string | null {
  const syntax = codeSyntaxOf(parser)!;
  const covering = deepestNodeCovering(parseCode(parser, text), secret.start, secret.end);
  if (isComment(covering)) return null;
  const literal = literalValue(covering, syntax);
  if (!literal || isStatementByItself(literal, syntax)) return null;
  const splice = spliceTarget(literal, syntax, secret);
  return splice ? spliceName(splice, syntax, secret) : baseName(unwrap(literal, syntax), syntax, secret);
}

/** The expression reading `name` in the languages without a checked read: Ruby's `ENV.fetch` raises naming it. */
function lookupExpression(syntax: CodeSyntax, parser: CodeParser, name: string, binding: string): string {
  return syntax.envLookup(name, binding, parser);
}

function redact(text: string, secret: LocatedSecret): CodeSecretResult {
  return { kind: 'redacted', text: applyEdits(text, [{ start: secret.start, end: secret.end, text: REDACTED }]) };
}

function isComment(node: SgNode): boolean {
  for (let n: SgNode | null = node; n; n = n.parent()) if (kindOf(n).includes('comment')) return true;
  return false;
}

/** The string literal around the secret, widened to a value made only of literals (`"a" "b"`, `"a" + "b"`). */
function literalValue(covering: SgNode, syntax: CodeSyntax): SgNode | null {
  let literal: SgNode | null = null;
  for (let n: SgNode | null = covering; n; n = n.parent()) {
    if (syntax.strings.includes(kindOf(n))) {
      literal = n;
      break;
    }
  }
  // A secret spanning several literals is covered by their concatenation.
  if (!literal && syntax.concatenations.includes(kindOf(covering)) && onlyLiterals(covering, syntax)) literal = covering;
  if (!literal) return null;
  for (let parent = literal.parent(); parent && syntax.concatenations.includes(kindOf(parent)) && onlyLiterals(parent, syntax); parent = parent.parent()) {
    literal = parent;
  }
  return literal;
}

function onlyLiterals(node: SgNode, syntax: CodeSyntax): boolean {
  if (syntax.strings.includes(kindOf(node))) return true;
  if (!syntax.concatenations.includes(kindOf(node))) return false;
  const operators = node.children().filter((c) => !c.isNamed()).map((c) => c.text());
  if (operators.some((op) => op !== '+' && op !== '.')) return false;
  return node.namedChildren().every((child) => onlyLiterals(child, syntax));
}

/** A string standing as a statement of its own: a docstring or a disabled block, read by nobody. */
function isStatementByItself(literal: SgNode, syntax: CodeSyntax): boolean {
  const parent = literal.parent();
  return !!parent && kindOf(parent) === syntax.bareStringStatement && parent.namedChildren().length === 1;
}

function hasDescendant(node: SgNode, kinds: string[]): boolean {
  if (!kinds.length) return false;
  return node.children().some((c) => kinds.includes(kindOf(c)) || hasDescendant(c, kinds));
}

function constantOnlyContext(node: SgNode, syntax: CodeSyntax): string | null {
  for (let n = node.parent(); n; n = n.parent()) {
    const why = syntax.constantOnly[kindOf(n)];
    if (why) return why;
  }
  return null;
}

/** Go's `const x = "…"` cannot hold a call: a lone constant becomes a variable, a constant in a group is left alone. */
function goConstToVar(literal: SgNode): TextEdit | string | null {
  const spec = literal.ancestors().find((a) => kindOf(a) === 'const_spec');
  if (!spec) return null;
  const declaration = spec.parent()!;
  if (declaration.children().filter((c) => kindOf(c) === 'const_spec').length > 1) {
    return 'the secret is a constant in a group of Go constants, which cannot hold os.Getenv()';
  }
  const keyword = declaration.children()[0];
  return { start: keyword.range().start.index, end: keyword.range().end.index, text: 'var' };
}

interface Replacement {
  node: SgNode;
  text: string;
  name: string;
}

/** What replaces which node: the literal itself, or the whole default-giving expression around it. */
function replacement(
  literal: SgNode,
  syntax: CodeSyntax,
  language: RuleLanguage,
  secret: LocatedSecret,
  choice: NameChoice,
  lookupFor: (name: string) => string,
): Replacement {
  const value = unwrap(literal, syntax);
  const parent = value.parent();

  // `process.env.TOKEN || "…"`: the fallback goes, the lookup stays.
  const fallback = parent && syntax.fallbacks.find((f) => f.kind === kindOf(parent));
  if (parent && fallback) {
    const [left, right] = parent.namedChildren();
    const operator = parent.children().find((c) => !c.isNamed() && fallback.operators.includes(c.text()));
    if (operator && right && right.range().start.index === value.range().start.index && /environ|getenv|\benv\b|ENV\b/i.test(left.text())) {
      return { node: parent, text: left.text(), name: toEnvName(targetWord(left.text()) ?? '') ?? envNameForRule(secret.rule.id) };
    }
  }

  const call = enclosingCallArguments(value, syntax);
  const keyName = call && call.index === 1 && call.args[0] && stringContent(call.args[0], syntax);
  // `os.getenv("TOKEN", "…")`: the default goes; the variable it reads must be set instead.
  if (call && keyName && syntax.envGetters.test(call.callee)) {
    const name = /^[A-Za-z_][A-Za-z0-9_]*$/.test(keyName) ? keyName : (toEnvName(keyName) ?? envNameForRule(secret.rule.id));
    return { node: call.node, text: lookupFor(name), name };
  }
  const name = distinctName(baseName(value, syntax, secret), value, syntax, choice);
  return { node: literal, text: decorate(lookupFor(name), literal, language), name };
}

/** The name the value would take by itself: the key beside it in a call, else what it is bound to, else the rule's. */
function baseName(value: SgNode, syntax: CodeSyntax, secret: LocatedSecret): string {
  const call = enclosingCallArguments(value, syntax);
  // `define('DB_PASSWORD', '…')`, `settings.put("api_key", "…")`: named by the key beside it.
  const keyName = call && call.index === 1 && call.args[0] && stringContent(call.args[0], syntax);
  if (keyName && !syntax.envGetters.test(call.callee)) return toEnvName(keyName) ?? envNameForRule(secret.rule.id);
  return bindingName(value, syntax) ?? envNameForRule(secret.rule.id);
}

/**
 * A name no other value of the file holds: the value's own, else qualified by what tells it apart (the
 * user beside it, the function or the structure it is in), else numbered.
 */
function distinctName(base: string, value: SgNode, syntax: CodeSyntax, choice: NameChoice): string {
  if (choice.given) return choice.given;
  // `ADMIN_PASSWORD` taken means another value was told apart from this one's kind: this one is told apart too.
  // Not a constant of its own name (`KEY = …` beside `SECRET_KEY = …`): its name already tells it apart.
  const toldApart = !namedConstant(value, syntax) && [...choice.taken].some((name) => name.endsWith(`_${base}`));
  if (!choice.taken.has(base) && !toldApart) return base;
  for (const qualifier of qualifiers(value, syntax)) {
    const name = base.startsWith(`${qualifier}_`) ? base : `${qualifier}_${base}`;
    if (!choice.taken.has(name)) return name;
  }
  for (let n = 2; ; n++) if (!choice.taken.has(`${base}_${n}`)) return `${base}_${n}`;
}

const IDENTITY_KEYS = /^(?:user(?:_?name)?|login|email|name|account|client_?id|host|service|role)$/i;

/** Words that tell this value apart, most telling first. */
function qualifiers(value: SgNode, syntax: CodeSyntax): string[] {
  const found: string[] = [];
  const add = (word: string | null | undefined) => {
    const name = word ? toEnvName(word.replace(/@.*$/, '')) : null;
    if (name && !found.includes(name)) found.push(name);
  };
  // A sibling naming whose credential it is: `{"email": "admin@…", "password": "…"}`, `connect(user="bob", password="…")`.
  const holder = value.parent();
  const container = holder && syntax.bindings[kindOf(holder)] !== undefined ? holder.parent() : null;
  for (const sibling of container?.namedChildren() ?? []) {
    if ((holder && sameNode(sibling, holder)) || !(kindOf(sibling) in syntax.bindings)) continue;
    const key = bindingTarget(sibling, syntax);
    const siblingValue = sibling.namedChildren().at(-1);
    const word = key ? targetWord(key.text()) : null;
    if (word && IDENTITY_KEYS.test(word) && siblingValue && key && !sameNode(siblingValue, key)) add(stringContent(siblingValue, syntax));
  }
  // What encloses it: a binding of the structure holding it, a function, a class.
  for (const ancestor of value.ancestors()) {
    const kind = kindOf(ancestor);
    if (/function|method|class/.test(kind) && !/call|argument/.test(kind)) add(fieldOf(ancestor, 'name')?.text());
    else if (!(holder && sameNode(ancestor, holder)) && kind in syntax.bindings) {
      const target = bindingTarget(ancestor, syntax);
      if (target) add(targetWord(target.text()));
    }
  }
  return found;
}

/** A part of a larger literal the secret is cut out of, or null when the whole literal is the value. */
interface Splice {
  /** The single string literal holding the secret. */
  string: SgNode;
  /** The literal or concatenation the value is. */
  value: SgNode;
}

function spliceTarget(literal: SgNode, syntax: CodeSyntax, secret: LocatedSecret): Splice | null {
  if (WHOLE_VALUE_RULES.has(secret.rule.id)) return null;
  let string: SgNode | null = deepestNodeCovering(literal, secret.start, secret.end);
  while (string && !syntax.strings.includes(kindOf(string))) string = string.parent();
  if (!string) return null;
  const content = stringContentRange(string);
  if (!content) return null;
  // The whole value is the secret (blank space around it aside): no part of it to keep.
  const text = literal.getRoot().root().text();
  const blank = (from: number, to: number) => /^\s*$/.test(text.slice(from, to));
  const wholeString = blank(content.start, secret.start) && blank(secret.end, content.end);
  if (wholeString && string.range().start.index === literal.range().start.index && string.range().end.index === literal.range().end.index) return null;
  return { string, value: literal };
}

/** Where a string literal's characters are, inside its quotes (and prefix). */
function stringContentRange(string: SgNode): { start: number; end: number; open: string; close: string } | null {
  const match = /^([A-Za-z]*(?:"""|\'\'\'|"|'|`))([\s\S]*?)("""|\'\'\'|"|'|`)$/.exec(string.text());
  if (!match) return null;
  const start = string.range().start.index + match[1].length;
  return { start, end: start + match[2].length, open: match[1], close: match[3] };
}

function overlapsInterpolation(splice: Splice, syntax: CodeSyntax, secret: LocatedSecret): boolean {
  const inside = (node: SgNode): boolean =>
    node.children().some((c) => {
      const r = c.range();
      if (syntax.interpolations.includes(kindOf(c)) && r.start.index < secret.end && secret.start < r.end.index) return true;
      return inside(c);
    });
  return inside(splice.string);
}

/** The name of a credential cut out of a larger string: its binding if that names a credential, else the word before it, else the rule's. */
function spliceName(splice: Splice, syntax: CodeSyntax, secret: LocatedSecret): string {
  const bound = bindingName(unwrap(splice.value, syntax), syntax);
  if (bound && CREDENTIAL_WORD.test(bound)) return bound;
  const before = splice.string.text().slice(0, secret.start - splice.string.range().start.index);
  // `token=…`, `"apiKey": "…"` name it; an authorization scheme (`Bearer …`, `token …`) does not.
  const [, word, separator] = /([A-Za-z][A-Za-z0-9_-]*)([^A-Za-z0-9]*)$/.exec(before) ?? [];
  const scheme = /^(?:bearer|basic)$/i.test(word ?? '') || /^\s+$/.test(separator ?? '');
  // A bare `token`/`key` says less than a vendor's rule (`github-pat`).
  const bare = /^(?:token|key|secret|pass(?:word)?|pwd|api[_-]?key)$/i.test(word ?? '') && !/^generic-/.test(secret.rule.id);
  if (word && CREDENTIAL_WORD.test(word) && !scheme && !bare) return toEnvName(word)!;
  return envNameForRule(secret.rule.id);
}

/** The literal with the secret cut out: a template literal takes the lookup in, others are joined around it. */
function spliced(
  splice: Splice,
  syntax: CodeSyntax,
  language: RuleLanguage,
  secret: LocatedSecret,
  choice: NameChoice,
  lookupFor: (name: string) => string,
): Replacement {
  const name = distinctName(spliceName(splice, syntax, secret), unwrap(splice.value, syntax), syntax, choice);
  const { string } = splice;
  const lookup = lookupFor(name);
  const offset = string.range().start.index;
  const text = string.text();
  const content = stringContentRange(string)!;
  const head = text.slice(0, secret.start - offset);
  const tail = text.slice(secret.end - offset);
  if (kindOf(string) === 'template_string') return { node: string, text: `${head}\${${lookup}}${tail}`, name };

  const join = language === 'php' ? ' . ' : ' + ';
  const isBytes = language === 'python' && /^[rR]?[bB]/.test(content.open);
  const parts: string[] = [];
  // A triple-quoted piece that now ends in its quote character would close a character early.
  const closesEarly = content.close.length === 3 && head.endsWith(content.close[0]);
  if (secret.start > content.start) parts.push(`${closesEarly ? `${head.slice(0, -1)}\\${content.close[0]}` : head}${content.close}`);
  parts.push(isBytes ? asBytes(lookup) : lookup);
  if (secret.end < content.end) parts.push(`${content.open}${tail}`);
  // Literals written next to each other join without an operator, which a lookup cannot.
  const implicit = string.parent() && kindOf(string.parent()!) === 'concatenated_string';
  const siblings = implicit ? string.parent()!.namedChildren().filter((c) => syntax.strings.includes(kindOf(c))) : [];
  let joined = parts.join(join);
  if (implicit && !sameNode(siblings[0], string) && secret.start === content.start) joined = `+ ${joined}`;
  if (implicit && !sameNode(siblings.at(-1)!, string) && secret.end === content.end) joined = `${joined} +`;
  const alone = string.parent() && string.range().start.index === splice.value.range().start.index && string.range().end.index === splice.value.range().end.index;
  if (alone && needsParentheses(splice.value)) joined = `(${joined})`;
  return { node: string, text: joined, name };
}

/** Whether a `a + b` put where the node stands would bind to something else around it. */
function needsParentheses(node: SgNode): boolean {
  const parent = node.parent();
  if (!parent) return false;
  return !/assignment|argument|pair|dictionary|list|tuple|array|object|return|parenthesized|declarator|initializer|expression_statement|keyword|field|element/.test(kindOf(parent));
}

/** The node standing for the literal among its parent's children, through parentheses and single-item lists. */
function unwrap(literal: SgNode, syntax: CodeSyntax): SgNode {
  let node = literal;
  for (let parent = node.parent(); parent && syntax.wrappers.includes(kindOf(parent)) && parent.namedChildren().length === 1; parent = parent.parent()) {
    node = parent;
  }
  return node;
}

const NAME_KINDS = new Set(['identifier', 'constant', 'variable_name', 'name']);
const ASSIGNMENT_KINDS = new Set(['assignment', 'augmented_assignment', 'operator_assignment', 'variable_declarator', 'assignment_expression', 'var_spec', 'const_spec', 'short_var_declaration', 'assignment_statement']);

/** What a binding (an assignment, a key: value pair, a keyword argument) binds to: its name side. */
function bindingTarget(binding: SgNode, syntax: CodeSyntax): SgNode | null {
  const field = syntax.bindings[kindOf(binding)];
  return (field ? fieldOf(binding, field) : binding.namedChildren()[0]) ?? null;
}

/** Whether the value is assigned to a plain variable or constant (`KEY = "…"`), not a key, field or argument. */
function namedConstant(value: SgNode, syntax: CodeSyntax): boolean {
  const parent = value.parent();
  if (!parent || !ASSIGNMENT_KINDS.has(kindOf(parent)) || !(kindOf(parent) in syntax.bindings)) return false;
  const target = bindingTarget(parent, syntax);
  return !!target && NAME_KINDS.has(kindOf(target));
}

function bindingName(value: SgNode, syntax: CodeSyntax): string | null {
  const parent = value.parent();
  if (!parent || !(kindOf(parent) in syntax.bindings)) return null;
  const target = bindingTarget(parent, syntax);
  if (!target || target.range().start.index === value.range().start.index) return null;
  // `a, b = "x", "y"` names no single target.
  if (kindOf(target) === 'expression_list' && target.namedChildren().length !== 1) return null;
  if (kindOf(target) === 'pattern_list' || kindOf(target) === 'tuple_pattern') return null;
  return envNameForTarget(target.text());
}

interface CallArguments {
  node: SgNode;
  callee: string;
  args: SgNode[];
  index: number;
}

function enclosingCallArguments(value: SgNode, syntax: CodeSyntax): CallArguments | null {
  const list = value.parent();
  const call = list?.parent();
  if (!list || !call || kindOf(call) !== syntax.calls.kind) return null;
  const argsField = fieldOf(call, syntax.calls.args);
  if (!argsField || argsField.range().start.index !== list.range().start.index) return null;
  const args = list.namedChildren().filter((c) => !kindOf(c).includes('comment'));
  const index = args.findIndex((a) => a.range().start.index === value.range().start.index);
  const callee = call.text().slice(0, list.range().start.index - call.range().start.index).trim();
  return { node: call, callee, args, index };
}

/** The text of a plain string literal argument (PHP wraps arguments in `argument`), else null. */
function stringContent(node: SgNode, syntax: CodeSyntax): string | null {
  const literal = kindOf(node) === 'argument' && node.namedChildren().length === 1 ? node.namedChildren()[0] : node;
  if (!syntax.strings.includes(kindOf(literal)) || hasDescendant(literal, syntax.interpolations)) return null;
  const match = /^[A-Za-z]*(["'`])(.*)\1$/s.exec(literal.text());
  return match ? match[2] : null;
}

/** Adjustments to where the lookup lands: a JSX attribute needs braces, a Python bytes literal bytes. */
function decorate(lookup: string, literal: SgNode, language: RuleLanguage): string {
  const parent = literal.parent();
  if (parent && kindOf(parent) === 'jsx_attribute') return `{${lookup}}`;
  if (language === 'python' && /^[rR]?[bB]|^[bB][rR]?/.test(literal.text())) return asBytes(lookup);
  return lookup;
}

/** A Python str value as bytes (the checked read is never None). */
function asBytes(lookup: string): string {
  return `${lookup}.encode()`;
}


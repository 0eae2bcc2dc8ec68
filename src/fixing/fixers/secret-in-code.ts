import type { SgNode } from '@ast-grep/napi';
import { codeSyntaxOf, ruleLanguageOf, type CodeSyntax, type RuleLanguage } from '../../languages/index.ts';
import { envNameForRule, envNameForTarget, toEnvName, targetWord } from './env-names.ts';
import { goOsImport, pythonOsImport } from './env-imports.ts';
import type { LocatedSecret } from './secret-location.ts';
import { deepestNodeCovering, fieldOf, kindOf, parseCode, type CodeParser } from './syntax.ts';
import { applyEdits, newlineOf, type TextEdit } from './text-edits.ts';

// A secret in source code becomes a read of the environment: the string literal holding it (or the
// literals joined into one value) is replaced by the language's lookup, named after what the value is
// assigned to. A secret in a comment or a docstring is redacted instead, since nothing reads it.

export const REDACTED = '<redacted>';

export type CodeSecretResult =
  | { kind: 'environment'; text: string; name: string; lookup: string }
  | { kind: 'redacted'; text: string }
  | { kind: 'refused'; reason: string };

export function moveSecretInCode(parser: CodeParser, text: string, secret: LocatedSecret): CodeSecretResult {
  const language = ruleLanguageOf(parser);
  const syntax = codeSyntaxOf(parser)!;
  const root = parseCode(parser, text);
  const covering = deepestNodeCovering(root, secret.start, secret.end);

  if (isComment(covering)) return redact(text, secret);
  const literal = literalValue(covering, syntax);
  if (!literal) return { kind: 'refused', reason: 'the secret is not in a string literal the fixer can replace' };
  if (isStatementByItself(literal, syntax)) return redact(text, secret);
  if (hasDescendant(literal, syntax.interpolations)) {
    return { kind: 'refused', reason: 'the string holding the secret also interpolates code, so it cannot be replaced as a whole' };
  }
  const constant = constantOnlyContext(literal, syntax);
  if (constant) return { kind: 'refused', reason: `the secret is where ${constant}` };

  const newline = newlineOf(text);
  const osImport = language === 'python' ? pythonOsImport(root, text, newline) : language === 'go' ? goOsImport(root, text, newline) : null;
  const binding = osImport?.binding ?? '';
  const replaced = replacement(literal, syntax, language, secret, (name) => syntax.envLookup(name, binding, parser));
  const edits: TextEdit[] = [{ start: replaced.node.range().start.index, end: replaced.node.range().end.index, text: replaced.text }];
  // The lookup may be one the code already had (a fallback removed), which needs nothing new.
  if (osImport?.edit && replaced.text.startsWith(`${binding}.`)) edits.push(osImport.edit);
  if (language === 'go') {
    const constEdit = goConstToVar(literal);
    if (typeof constEdit === 'string') return { kind: 'refused', reason: constEdit };
    if (constEdit) edits.push(constEdit);
  }
  return { kind: 'environment', text: applyEdits(text, edits), name: replaced.name, lookup: replaced.text };
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
  if (call) {
    const keyName = call.index === 1 && call.args[0] && stringContent(call.args[0], syntax);
    // `os.getenv("TOKEN", "…")`: the default goes; the variable it reads must be set instead.
    if (keyName && syntax.envGetters.test(call.callee)) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*$/.test(keyName) ? keyName : (toEnvName(keyName) ?? envNameForRule(secret.rule.id));
      return { node: call.node, text: lookupFor(name), name };
    }
    // `define('DB_PASSWORD', '…')`, `settings.put("api_key", "…")`: named by the key beside it.
    if (keyName) {
      const name = toEnvName(keyName) ?? envNameForRule(secret.rule.id);
      return { node: literal, text: decorate(lookupFor(name), literal, language), name };
    }
  }

  const name = bindingName(value, syntax) ?? envNameForRule(secret.rule.id);
  return { node: literal, text: decorate(lookupFor(name), literal, language), name };
}

/** The node standing for the literal among its parent's children, through parentheses and single-item lists. */
function unwrap(literal: SgNode, syntax: CodeSyntax): SgNode {
  let node = literal;
  for (let parent = node.parent(); parent && syntax.wrappers.includes(kindOf(parent)) && parent.namedChildren().length === 1; parent = parent.parent()) {
    node = parent;
  }
  return node;
}

function bindingName(value: SgNode, syntax: CodeSyntax): string | null {
  const parent = value.parent();
  if (!parent || !(kindOf(parent) in syntax.bindings)) return null;
  const field = syntax.bindings[kindOf(parent)];
  const target = field ? fieldOf(parent, field) : parent.namedChildren()[0];
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
  if (language === 'python' && /^[rR]?[bB]|^[bB][rR]?/.test(literal.text())) return `${lookup}.encode()`;
  return lookup;
}

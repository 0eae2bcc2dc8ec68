import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../shared/syntax.ts';
import { lineIndent, lineStartOf, newlineOf, type TextEdit } from '../shared/text-edits.ts';

// A credential read from the environment must stop the app when the variable is missing or empty, with a
// message naming it: a soft read that yields None, "" or undefined would flow into a comparison or a key
// and let anyone in. The read is checked in the statement's own block, right after it when the value is
// simply assigned (`SECRET_KEY = os.environ.get("SECRET_KEY")` and then `if not SECRET_KEY: raise …`), else
// read into a name of its own just before the statement that uses it (or reuses such a read made earlier in
// the module); a Python parameter's default is read when the function runs without the argument. Python's
// form runs on 2.7 and 3; code at module level stops the app at start, code in a function stops that call.

export type FailClosedLanguage = 'python' | 'javascript';

/** Where the value goes: the node replaced and the replacement, with VALUE_SLOT where the read stands. */
export interface ValueSite {
  node: SgNode;
  /** The replacement text with VALUE_SLOT where the checked value goes. */
  template: string;
  /** What the variable holds, for the message a missing one stops the app with: a credential unless said. */
  holds?: string;
}

export const VALUE_SLOT = '\u0000value\u0000';

export interface RequiredRead {
  edits: TextEdit[];
  /** The code that reads the variable, for notes. */
  read: string;
  /** When a missing variable stops the app: while it starts (module level) or when a function runs. */
  stops: { at: 'start' } | { at: 'call'; functionName: string | null };
}

export function softRead(language: FailClosedLanguage, name: string, binding: string): string {
  return language === 'python' ? `${binding}.environ.get("${name}")` : `process.env.${name}`;
}

/** The message a missing variable stops the app with. */
export function missingMessage(name: string, holds = 'this credential'): string {
  return `Set the environment variable ${name}: the app reads ${holds} from it`;
}

/**
 * The edits that replace the value with a checked read of `name`. `read` is the soft read to use (an
 * existing `os.environ.get("X")` the code had, or a new one). Null with a reason when no statement of its
 * own can hold the check (a one-line block, statements joined by `;`).
 */
export function requiredRead(
  language: FailClosedLanguage,
  typescript: boolean,
  text: string,
  site: ValueSite,
  name: string,
  soft: string,
): RequiredRead | { refused: string } {
  let read = soft;
  const defaulted = language === 'python' && site.template === VALUE_SLOT ? defaultParameterRead(text, site.node, name, soft, site.holds) : null;
  if (defaulted) return defaulted;
  const statement = enclosingStatement(language, site.node);
  if (!statement) return { refused: 'the credential is not inside a statement the fixer can add a check beside' };
  const newline = newlineOf(text);
  const stops = stopsAt(language, statement);
  const tryBlock = outermostTry(language, statement);
  const anchor = tryBlock ?? statement;
  if (!startsItsLine(text, anchor)) return { refused: 'the statement holding the credential shares its line with other code, so no check can be added beside it' };

  // A value assigned as it is, or as bytes (b"" is as empty as ""), is checked where it is assigned.
  const asBytes = language === 'python' && site.template === `${VALUE_SLOT}.encode()` && /\.get\("[^"]+"\)$/.test(read);
  const target = !tryBlock && (site.template === VALUE_SLOT || asBytes) ? assignedTarget(language, typescript, statement, site.node) : null;
  if (target) {
    if (asBytes) read = `${read.slice(0, -1)}, "").encode()`;
    const lineEnd = endOfLine(text, statement.range().end.index);
    if (lineEnd === null) return { refused: 'the statement holding the credential is followed by other code on its line' };
    const indent = lineIndent(text, statement.range().start.index);
    return {
      edits: [
        { start: site.node.range().start.index, end: site.node.range().end.index, text: read },
        { start: lineEnd, end: lineEnd, text: `${newline}${check(language, target, name, indent, indentUnit(text), newline, site.holds)}` },
      ],
      read,
      stops,
    };
  }

  // A checked module-level read of the same variable earlier in the file is used again.
  const earlier = stops.at === 'start' ? checkedReadBefore(language, text, name, anchor.range().start.index) : null;
  if (earlier) {
    return {
      edits: [{ start: site.node.range().start.index, end: site.node.range().end.index, text: site.template.replaceAll(VALUE_SLOT, earlier) }],
      read: `${earlier}, read earlier in the file`,
      stops,
    };
  }
  // A local name need only be free in its function; a module-level one in the whole file.
  const scope = stops.at === 'start' ? text : (statement.ancestors().find((a) => FUNCTIONS[language].includes(kindOf(a)))?.text() ?? text);
  const identifier = freeIdentifier(scope, stops.at === 'start' ? name : localName(language, name));
  const indent = lineIndent(text, anchor.range().start.index);
  const at = lineStartOf(text, anchor.range().start.index);
  const declaration = language === 'python' ? `${identifier} = ${read}` : `const ${identifier} = ${read};`;
  // Before a Python definition, the blank lines PEP 8 asks for between top-level (two) or nested (one) definitions.
  const definition = language === 'python' && ['function_definition', 'class_definition', 'decorated_definition'].includes(kindOf(anchor));
  const gap = definition ? newline.repeat(indent ? 1 : 2) : '';
  const hoisted = `${indent}${declaration}${newline}${check(language, identifier, name, indent, indentUnit(text), newline, site.holds)}${newline}${gap}`;
  return {
    edits: [
      { start: at, end: at, text: hoisted },
      { start: site.node.range().start.index, end: site.node.range().end.index, text: site.template.replaceAll(VALUE_SLOT, identifier) },
    ],
    read: `${identifier} = ${read}`,
    stops,
  };
}

/**
 * A Python parameter's default runs when the module loads: a credential there becomes `None`, read and
 * checked when the function runs, so only a call without the argument needs the variable.
 */
function defaultParameterRead(text: string, value: SgNode, name: string, read: string, holds?: string): RequiredRead | null {
  const parameter = value.parent();
  if (!parameter || !['default_parameter', 'typed_default_parameter'].includes(kindOf(parameter))) return null;
  const field = fieldOf(parameter, 'value');
  if (!field || field.range().start.index !== value.range().start.index) return null;
  const fn = parameter.parent()?.parent();
  const body = fn && kindOf(fn) === 'function_definition' ? fieldOf(fn, 'body') : null;
  const param = fieldOf(parameter, 'name')?.text();
  if (!body || !param || !/^\w+$/.test(param)) return null;
  const statements = body.namedChildren().filter((c) => !kindOf(c).includes('comment'));
  const docstring = statements[0] && kindOf(statements[0]) === 'expression_statement' && statements[0].namedChildren().length === 1 && kindOf(statements[0].namedChildren()[0]) === 'string';
  const first = statements[docstring ? 1 : 0];
  const after = docstring ? statements[0] : null;
  const anchor = first ?? after;
  if (!anchor || !startsItsLine(text, anchor)) return null;
  const newline = newlineOf(text);
  const indent = lineIndent(text, anchor.range().start.index);
  const unit = indentUnit(text);
  const block =
    `${indent}if ${param} is None:${newline}${indent}${unit}${param} = ${read}${newline}` +
    `${check('python', param, name, indent + unit, unit, newline, holds)}${newline}`;
  let at: number;
  if (first) at = lineStartOf(text, first.range().start.index);
  else {
    const end = endOfLine(text, after!.range().end.index);
    if (end === null) return null;
    at = end + (text.startsWith('\r\n', end) ? 2 : text.startsWith('\n', end) ? 1 : 0);
    if (at === end) return null;
  }
  return {
    edits: [
      { start: at, end: at, text: block },
      { start: value.range().start.index, end: value.range().end.index, text: 'None' },
    ],
    read,
    stops: { at: 'call', functionName: fieldOf(fn!, 'name')?.text() ?? null },
  };
}

/** The name of a checked read of `name` at module level before `offset` (`X = os.environ.get("NAME")` then its check). */
function checkedReadBefore(language: FailClosedLanguage, text: string, name: string, offset: number): string | null {
  const before = text.slice(0, offset);
  const read =
    language === 'python'
      ? new RegExp(`^([A-Za-z_]\\w*) = \\w+\\.environ\\.get\\("${name}"\\)\\r?\\nif not \\1:`, 'm')
      : new RegExp(`^const ([A-Za-z_$][\\w$]*) = process\\.env\\.${name};\\r?\\nif \\(!\\1\\) throw`, 'm');
  return read.exec(before)?.[1] ?? null;
}

function check(language: FailClosedLanguage, target: string, name: string, indent: string, unit: string, newline: string, holds?: string): string {
  const message = JSON.stringify(missingMessage(name, holds));
  if (language === 'python') return `${indent}if not ${target}:${newline}${indent}${unit}raise RuntimeError(${message})`;
  return `${indent}if (!${target}) throw new Error(${message});`;
}

const BLOCKS: Record<FailClosedLanguage, string[]> = {
  python: ['module', 'block'],
  javascript: ['program', 'statement_block', 'switch_case', 'switch_default'],
};

const FUNCTIONS: Record<FailClosedLanguage, string[]> = {
  python: ['function_definition', 'lambda'],
  javascript: ['function_declaration', 'function_expression', 'arrow_function', 'method_definition', 'generator_function_declaration', 'generator_function'],
};

/** The statement holding the node, as a child of a module or block. */
function enclosingStatement(language: FailClosedLanguage, node: SgNode): SgNode | null {
  for (let n: SgNode | null = node; n; n = n.parent()) {
    const parent = n.parent();
    if (parent && BLOCKS[language].includes(kindOf(parent))) {
      // A lambda or arrow function's body is not a block: the statement around the function holds it.
      return n;
    }
  }
  return null;
}

/** A `try` around the statement in its function: a check inside would be caught by its handler, so it goes before the try. */
function outermostTry(language: FailClosedLanguage, statement: SgNode): SgNode | null {
  let found: SgNode | null = null;
  for (let n = statement.parent(); n; n = n.parent()) {
    if (FUNCTIONS[language].includes(kindOf(n)) || kindOf(n) === 'class_definition' || kindOf(n) === 'class_declaration') break;
    if (kindOf(n) === 'try_statement' && n.parent() && BLOCKS[language].includes(kindOf(n.parent()!))) found = n;
  }
  return found;
}

function stopsAt(language: FailClosedLanguage, statement: SgNode): RequiredRead['stops'] {
  const fn = statement.ancestors().find((a) => FUNCTIONS[language].includes(kindOf(a)));
  if (!fn) return { at: 'start' };
  return { at: 'call', functionName: fieldOf(fn, 'name')?.text() ?? null };
}

/** What the value is assigned to, when the statement is nothing but that assignment (`X = value`, `const x = value;`). */
function assignedTarget(language: FailClosedLanguage, typescript: boolean, statement: SgNode, value: SgNode): string | null {
  const same = (a: SgNode | null) => !!a && a.range().start.index === value.range().start.index && a.range().end.index === value.range().end.index;
  if (language === 'python') {
    if (kindOf(statement) !== 'expression_statement' || statement.namedChildren().length !== 1) return null;
    const assignment = statement.namedChildren()[0];
    if (kindOf(assignment) !== 'assignment' || !same(fieldOf(assignment, 'right'))) return null;
    const left = fieldOf(assignment, 'left');
    return left && ['identifier', 'attribute', 'subscript'].includes(kindOf(left)) ? left.text() : null;
  }
  // An exported TypeScript constant would be typed string | undefined for its importers: it is read into a name first.
  if (typescript && kindOf(statement) === 'export_statement') return null;
  const declaration = kindOf(statement) === 'export_statement' ? fieldOf(statement, 'declaration') : statement;
  if (declaration && ['lexical_declaration', 'variable_declaration'].includes(kindOf(declaration))) {
    const declarators = declaration.namedChildren().filter((c) => kindOf(c) === 'variable_declarator');
    if (declarators.length !== 1 || !same(fieldOf(declarators[0], 'value'))) return null;
    const name = fieldOf(declarators[0], 'name');
    // A typed declaration (`const key: string = …`) would not take string | undefined; it is read into a name first.
    if (!name || kindOf(name) !== 'identifier' || fieldOf(declarators[0], 'type')) return null;
    return name.text();
  }
  if (kindOf(statement) !== 'expression_statement') return null;
  const assignment = statement.namedChildren()[0];
  if (!assignment || kindOf(assignment) !== 'assignment_expression' || !same(fieldOf(assignment, 'right'))) return null;
  const left = fieldOf(assignment, 'left');
  // In TypeScript a member typed string would not take string | undefined.
  if (!left || !(kindOf(left) === 'identifier' || (!typescript && ['member_expression', 'subscript_expression'].includes(kindOf(left))))) return null;
  return left.text();
}

function startsItsLine(text: string, node: SgNode): boolean {
  const start = node.range().start.index;
  return /^[ \t]*$/.test(text.slice(lineStartOf(text, start), start));
}

/** The end of the line a statement ends on, when only blank space or a comment follows it there. */
function endOfLine(text: string, offset: number): number | null {
  const newline = text.indexOf('\n', offset);
  const end = newline === -1 ? text.length : newline > 0 && text[newline - 1] === '\r' ? newline - 1 : newline;
  const rest = text.slice(offset, end);
  return /^[ \t;]*(?:(?:#|\/\/).*)?$/.test(rest) ? end : null;
}

/** The file's own indentation step: how far the line after the first line ending in `:` goes in, else four spaces. */
function indentUnit(text: string): string {
  const opener = /^([ \t]*)[^\s#][^\n]*:[ \t]*(?:#[^\n]*)?\r?\n(?:[ \t]*\r?\n)*([ \t]+)\S/m.exec(text);
  if (!opener || !opener[2].startsWith(opener[1]) || opener[2].length === opener[1].length) return '    ';
  return opener[2].slice(opener[1].length);
}

const KEYWORDS = new Set(
  'and as assert async await break case catch class const continue debugger def default del delete do elif else enum except exec export extends false finally for from function global if import in instanceof is lambda let new nonlocal not or pass print raise return super switch this throw true try typeof var void while with yield'.split(' '),
);

/** A local variable's name for the setting: `api_key` in Python, `apiKey` in JavaScript. */
function localName(language: FailClosedLanguage, name: string): string {
  const lower = name.toLowerCase().replace(/^_+/, '') || 'secret';
  return language === 'python' ? lower : lower.replace(/_+([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The variable's name as a code identifier, unless the file already uses that word. */
function freeIdentifier(text: string, name: string): string {
  const used = (word: string) => KEYWORDS.has(word) || new RegExp(`(?<![\\w$])${word}(?![\\w$])`).test(text);
  if (!used(name)) return name;
  const suffix = (word: string) => (name === name.toLowerCase() ? word.toLowerCase() : word);
  for (const candidate of [`${name}_${suffix('VALUE')}`, `${name}_${suffix('SETTING')}`]) if (!used(candidate)) return candidate;
  for (let n = 2; ; n++) if (!used(`${name}_${n}`)) return `${name}_${n}`;
}

import grammar from '@ast-grep/lang-python';
import type { SgNode } from '@ast-grep/napi';
import type { Constant, Language } from './language.ts';

/**
 * The tests of validatesPython, each with a test of the condition alone that it cannot pass without: most
 * conditions pass none of those, and then no name needs testing. A name's tests are made once per name, as
 * compiling them cost more than running them.
 */
const VALIDATIONS: { needs: RegExp; test: (n: string) => RegExp }[] = [
  { needs: /\sin\s/, test: (n) => new RegExp(`(?:^|[\\s(])[bru]*(?:"(?:[^"\\\\]|\\\\.)*"|'(?:[^'\\\\]|\\\\.)*')\\s+in\\s+${n}\\b`) },
  // the value, or a part of it once parsed (parsed.netloc not in ALLOWED_HOSTS)
  { needs: /\snot\s+in\b/, test: (n) => new RegExp(`\\b${n}(?:\\.\\w+)?\\s+not\\s+in\\b`) },
  // str(resolved).startswith(str(base)): a path resolved and kept inside its folder
  {
    needs: /\.(?:is_relative_to|startswith|endswith|isalnum|isalpha|isdigit|isdecimal|isnumeric|isidentifier|isascii)\(/,
    test: (n) => new RegExp(`(?:\\bstr\\(\\s*)?\\b${n}(?:\\.\\w+)?\\)?\\.(?:is_relative_to|startswith|endswith|isalnum|isalpha|isdigit|isdecimal|isnumeric|isidentifier|isascii)\\(`),
  },
  { needs: /\bre\.(?:match|fullmatch|search)\(/, test: (n) => new RegExp(`\\bre\\.(?:match|fullmatch|search)\\([^,]+,\\s*${n}\\b`) },
];

const validationTestsByName = new Map<string, RegExp[]>();

function validationTests(name: string): RegExp[] {
  let tests = validationTestsByName.get(name);
  if (!tests) {
    const n = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    tests = VALIDATIONS.map((v) => v.test(n));
    if (validationTestsByName.size >= 4096) validationTestsByName.clear();
    validationTestsByName.set(name, tests);
  }
  return tests;
}

/** The last condition asked about, and which of VALIDATIONS it may pass: it is asked about each of its names. */
let lastCondition: { text: string; may: boolean[] } | undefined;

/**
 * Whether an `if` condition inspects the content of `name` so that the branch leaving the function rejects bad
 * values: a substring test ("'" in name), an allow-list (name not in ALLOWED), a prefix, suffix or character
 * class test, or a regular expression matched against it. A mere truthiness or length test is not one.
 */
function validatesPython(condition: string, name: string): boolean {
  if (lastCondition?.text !== condition) lastCondition = { text: condition, may: VALIDATIONS.map((v) => v.needs.test(condition)) };
  const { may } = lastCondition;
  if (!may.includes(true)) return false;
  const tests = validationTests(name);
  return tests.some((re, i) => may[i] && re.test(condition));
}

const ARITHMETIC: Record<string, (a: number, b: number) => number> = { '+': (a, b) => a + b, '-': (a, b) => a - b, '*': (a, b) => a * b, '//': (a, b) => Math.floor(a / b), '%': (a, b) => a % b };
const COMPARISON: Record<string, (a: number, b: number) => boolean> = { '>': (a, b) => a > b, '<': (a, b) => a < b, '>=': (a, b) => a >= b, '<=': (a, b) => a <= b, '==': (a, b) => a === b, '!=': (a, b) => a !== b };

/** A plain string literal's value (no f-string, no escapes), or undefined. */
function stringValue(node: SgNode): string | undefined {
  const m = /^(["'])([^"'\\{}]*)\1$/.exec(node.text());
  return m ? m[2] : undefined;
}

/** The value of an expression built from number and string literals and looked-up names, or undefined. */
function foldPython(node: SgNode, valueOf: (name: string) => Constant | undefined): Constant | undefined {
  const kind = String(node.kind());
  const children = node.namedChildren().filter((c) => String(c.kind()) !== 'comment');
  if (kind === 'integer') return /^\d+$/.test(node.text()) ? Number(node.text()) : undefined;
  if (kind === 'string') return stringValue(node);
  if (kind === 'identifier') return valueOf(node.text());
  if (kind === 'parenthesized_expression' && children.length === 1) return foldPython(children[0], valueOf);
  if (kind === 'subscript') {
    const [value, index] = [node.field('value'), node.field('subscript')].map((c) => (c ? foldPython(c, valueOf) : undefined));
    return typeof value === 'string' && typeof index === 'number' && index < value.length ? value[index] : undefined;
  }
  if (kind === 'not_operator') {
    const value = foldPython(children[0], valueOf);
    return value === undefined ? undefined : !value;
  }
  if (kind === 'binary_operator' || kind === 'comparison_operator') {
    const operator = kind === 'binary_operator' ? node.field('operator')?.text() : node.children().filter((c) => !c.isNamed()).map((c) => c.text());
    const ops = typeof operator === 'string' ? [operator] : (operator ?? []);
    if (children.length !== 2 || ops.length !== 1) return undefined;
    const [a, b] = children.map((c) => foldPython(c, valueOf));
    if (typeof a !== 'number' || typeof b !== 'number') return undefined;
    const apply = kind === 'binary_operator' ? ARITHMETIC[ops[0]] : COMPARISON[ops[0]];
    if (!apply || ((ops[0] === '//' || ops[0] === '%') && b === 0)) return undefined;
    return apply(a, b);
  }
  return undefined;
}

/**
 * The parts of an if or match statement a constant never runs: the branch an if's constant condition does
 * not take; the cases after the first one whose literal pattern (or `_`) a constant subject matches.
 */
function deadPython(statement: SgNode, valueOf: (name: string) => Constant | undefined): SgNode[] {
  if (String(statement.kind()) === 'if_statement') {
    const condition = statement.field('condition');
    const value = condition ? foldPython(condition, valueOf) : undefined;
    if (value === undefined) return [];
    return value ? statement.fieldChildren('alternative') : [statement.field('consequence')!].filter(Boolean);
  }
  const subject = statement.field('subject');
  const value = subject ? foldPython(subject, valueOf) : undefined;
  if (value === undefined) return [];
  const cases = (statement.field('body')?.namedChildren() ?? []).filter((c) => String(c.kind()) === 'case_clause');
  const dead: SgNode[] = [];
  let matched = false;
  for (const clause of cases) {
    if (matched) { dead.push(clause); continue; }
    const pattern = clause.namedChildren().find((c) => String(c.kind()) === 'case_pattern');
    if (!pattern || clause.field('guard')) return [];
    const alternatives = pattern.text() === '_' ? ['_'] : (pattern.find({ rule: { kind: 'union_pattern' } }) ?? pattern).namedChildren().map((c) => (String(c.kind()) === 'case_pattern' ? c.namedChildren()[0] : c));
    const values = alternatives.map((alt) => (typeof alt === 'string' ? alt : (String(alt.kind()) === 'string' ? stringValue(alt) : String(alt.kind()) === 'integer' ? Number(alt.text()) : null)));
    if (values.includes('_') && pattern.text() === '_') { matched = true; continue; }
    // a pattern that is not a plain literal (a capture, a class, a sequence) may match anything
    if (values.some((v) => v === null || v === undefined)) return [];
    if (values.includes(value as never)) matched = true;
    else dead.push(clause);
  }
  return dead;
}

export const python: Language<'python', 'python'> = {
  id: 'python',
  parsers: { python: { extensions: ['py'], astGrep: 'python' } },
  dynamicGrammar: grammar,
  taint: {
    functions: ['function_definition', 'lambda'],
    bindings: {
      assignment: { target: 'left', value: 'right' },
      augmented_assignment: { target: 'left', value: 'right' },
      for_statement: { target: 'left', value: 'right' },
      named_expression: { target: 'name', value: 'value' },
      for_in_clause: { target: 'left', value: 'right' },
      as_pattern: { target: 'alias', value: '' },
    },
    identifiers: ['identifier'],
    calls: { kind: 'call', callee: 'function', args: 'arguments' },
    returns: ['return_statement', 'yield'],
    receivers: ['self', 'cls'],
    members: ['attribute'],
    subscripts: ['subscript'],
    namedValues: ['keyword_argument', 'pair'],
    keywordArguments: ['keyword_argument'],
    blocks: ['block'],
    binaryExpressions: ['binary_operator'],
    templateStrings: [],
    passThrough: ['parenthesized_expression'],
    decorated: ['decorated_definition'],
    conditionals: { conditional_expression: 1 },
    constantKeys: { index: 'subscript', strings: ['string'] },
    branchBlocks: ['block'],
    storeMethods: ['append', 'extend', 'insert', 'add', 'update', 'set', 'setdefault', 'put', 'appendleft', 'extendleft', 'write'],
    constantBranches: { statements: ['if_statement', 'match_statement'], fold: foldPython, dead: deadPython },
    guards: { kind: 'if_statement', condition: 'condition', body: 'consequence', exits: ['return_statement', 'raise_statement'], validates: validatesPython },
  },
  code: {
    strings: ['string'],
    concatenations: ['concatenated_string', 'binary_operator'],
    interpolations: ['interpolation'],
    wrappers: ['parenthesized_expression'],
    bindings: {
      assignment: 'left',
      augmented_assignment: 'left',
      keyword_argument: 'name',
      pair: 'key',
      default_parameter: 'name',
      typed_default_parameter: 'name',
    },
    calls: { kind: 'call', args: 'arguments' },
    fallbacks: [{ kind: 'boolean_operator', operators: ['or'] }],
    envGetters: /^os\.(?:getenv|environ\.get|environ\.setdefault)$/,
    constantOnly: {},
    bareStringStatement: 'expression_statement',
    envLookup: (name) => `os.environ["${name}"]`,
  },
};

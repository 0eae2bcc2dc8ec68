import grammar from '@ast-grep/lang-python';
import type { Language } from './language.ts';

/**
 * Whether an `if` condition inspects the content of `name` so that the branch leaving the function rejects bad
 * values: a substring test ("'" in name), an allow-list (name not in ALLOWED), a prefix, suffix or character
 * class test, or a regular expression matched against it. A mere truthiness or length test is not one.
 */
function validatesPython(condition: string, name: string): boolean {
  const n = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [
    new RegExp(`(?:^|[\\s(])[bru]*(?:"(?:[^"\\\\]|\\\\.)*"|'(?:[^'\\\\]|\\\\.)*')\\s+in\\s+${n}\\b`),
    new RegExp(`\\b${n}\\s+not\\s+in\\b`),
    new RegExp(`\\b${n}\\.(?:startswith|endswith|isalnum|isalpha|isdigit|isdecimal|isnumeric|isidentifier|isascii)\\(`),
    new RegExp(`\\bre\\.(?:match|fullmatch|search)\\([^,]+,\\s*${n}\\b`),
  ].some((re) => re.test(condition));
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

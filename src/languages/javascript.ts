import { Lang } from '@ast-grep/napi';
import type { Language } from './language.ts';

/** JavaScript, TypeScript and TSX: one rule family, three parsers. */
export const javascript: Language<'javascript', 'javascript' | 'typescript' | 'tsx'> = {
  id: 'javascript',
  parsers: {
    javascript: { extensions: ['js', 'mjs', 'cjs', 'jsx'], astGrep: Lang.JavaScript },
    typescript: { extensions: ['ts', 'mts', 'cts'], astGrep: Lang.TypeScript },
    tsx: { extensions: ['tsx'], astGrep: Lang.Tsx },
  },
  taint: {
    functions: ['function_declaration', 'function_expression', 'arrow_function', 'method_definition', 'generator_function_declaration', 'generator_function'],
    bindings: {
      variable_declarator: { target: 'name', value: 'value' },
      assignment_expression: { target: 'left', value: 'right' },
      augmented_assignment_expression: { target: 'left', value: 'right' },
      for_in_statement: { target: 'left', value: 'right' },
    },
    identifiers: ['identifier', 'shorthand_property_identifier_pattern', 'shorthand_property_identifier'],
    calls: { kind: 'call_expression', callee: 'function', args: 'arguments' },
    returns: ['return_statement'],
    receivers: ['this'],
    members: ['member_expression'],
    subscripts: ['subscript_expression'],
    namedValues: ['pair'],
    keywordArguments: [],
    blocks: ['statement_block'],
    binaryExpressions: ['binary_expression'],
    templateStrings: ['template_string'],
    passThrough: ['await_expression', 'parenthesized_expression'],
    decorated: [],
  },
  code: {
    strings: ['string', 'template_string'],
    concatenations: ['binary_expression'],
    interpolations: ['template_substitution'],
    wrappers: ['parenthesized_expression'],
    bindings: {
      variable_declarator: 'name',
      assignment_expression: 'left',
      pair: 'key',
      public_field_definition: 'name',
      field_definition: 'property',
      required_parameter: 'pattern',
      optional_parameter: 'pattern',
      assignment_pattern: 'left',
      jsx_attribute: null,
    },
    calls: { kind: 'call_expression', args: 'arguments' },
    fallbacks: [{ kind: 'binary_expression', operators: ['||', '??'] }],
    envGetters: /^$/,
    constantOnly: {
      enum_assignment: 'an enum member must be a constant',
      enum_body: 'an enum member must be a constant',
      literal_type: 'it is a type, not a value',
      import_statement: 'it is a module name',
    },
    bareStringStatement: 'expression_statement',
    // In TypeScript the literal was a string; `!` keeps the type a string where it is passed on, as the value must be set.
    envLookup: (name, _binding, parser) => (parser === 'javascript' ? `process.env.${name}` : `process.env.${name}!`),
  },
};

import grammar from '@ast-grep/lang-php';
import type { Language } from './language.ts';

export const php: Language<'php', 'php'> = {
  id: 'php',
  parsers: { php: { extensions: ['php'], astGrep: 'php' } },
  dynamicGrammar: grammar,
  code: {
    strings: ['string', 'encapsed_string'],
    concatenations: ['binary_expression'],
    interpolations: ['variable_name', 'member_access_expression', 'subscript_expression', 'dynamic_variable_name'],
    wrappers: ['parenthesized_expression', 'argument'],
    bindings: { assignment_expression: 'left', array_element_initializer: null },
    calls: { kind: 'function_call_expression', args: 'arguments' },
    fallbacks: [{ kind: 'binary_expression', operators: ['??', '?:', '||', 'or'] }],
    envGetters: /^$/,
    constantOnly: {
      const_element: 'a PHP constant cannot call getenv()',
      property_element: 'a PHP property default cannot call getenv()',
      simple_parameter: 'a PHP parameter default cannot call getenv()',
      static_variable_declaration: 'a PHP static variable cannot call getenv()',
      attribute: 'an attribute argument must be a constant',
    },
    bareStringStatement: 'expression_statement',
    envLookup: (name) => `getenv('${name}')`,
  },
};

import grammar from '@ast-grep/lang-go';
import type { Language } from './language.ts';

export const go: Language<'go', 'go'> = {
  id: 'go',
  parsers: { go: { extensions: ['go'], astGrep: 'go' } },
  dynamicGrammar: grammar,
  code: {
    strings: ['interpreted_string_literal', 'raw_string_literal'],
    concatenations: ['binary_expression'],
    interpolations: [],
    wrappers: ['parenthesized_expression', 'expression_list', 'literal_element'],
    bindings: {
      var_spec: 'name',
      const_spec: 'name',
      short_var_declaration: 'left',
      assignment_statement: 'left',
      keyed_element: 'key',
    },
    calls: { kind: 'call_expression', args: 'arguments' },
    fallbacks: [],
    envGetters: /^$/,
    constantOnly: { field_declaration: 'a struct tag must be a literal', import_spec: 'it is a package path' },
    envLookup: (name, binding) => `${binding}.Getenv("${name}")`,
  },
};

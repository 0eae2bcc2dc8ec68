import grammar from '@ast-grep/lang-java';
import type { Language } from './language.ts';

export const java: Language<'java', 'java'> = {
  id: 'java',
  parsers: { java: { extensions: ['java'], astGrep: 'java' } },
  dynamicGrammar: grammar,
  code: {
    strings: ['string_literal'],
    concatenations: ['binary_expression'],
    interpolations: [],
    wrappers: ['parenthesized_expression'],
    bindings: { variable_declarator: 'name', assignment_expression: 'left' },
    calls: { kind: 'method_invocation', args: 'arguments' },
    fallbacks: [],
    envGetters: /^$/,
    constantOnly: {
      annotation: 'an annotation argument must be a constant',
      switch_label: 'a case label must be a constant',
    },
    envLookup: (name) => `System.getenv("${name}")`,
  },
};

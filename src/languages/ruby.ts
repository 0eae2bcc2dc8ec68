import grammar from '@ast-grep/lang-ruby';
import type { Language } from './language.ts';

export const ruby: Language<'ruby', 'ruby'> = {
  id: 'ruby',
  parsers: { ruby: { extensions: ['rb'], astGrep: 'ruby' } },
  dynamicGrammar: grammar,
  code: {
    strings: ['string'],
    concatenations: ['binary', 'chained_string'],
    interpolations: ['interpolation'],
    wrappers: ['parenthesized_statements'],
    bindings: { assignment: 'left', operator_assignment: 'left', pair: 'key' },
    calls: { kind: 'call', args: 'arguments' },
    fallbacks: [{ kind: 'binary', operators: ['||', 'or'] }],
    envGetters: /^ENV\.fetch$/,
    constantOnly: {},
    envLookup: (name) => `ENV.fetch("${name}")`,
  },
};

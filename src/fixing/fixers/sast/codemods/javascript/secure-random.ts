import { kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { jsHelper, replace } from '../edit-kit.ts';

// Math.random() for a token, code or secret → secureRandom(), a helper added to the module that returns a
// float in [0, 1) as Math.random() does, drawn from the platform's cryptographic generator (the Web Crypto
// `crypto` global of browsers and of Node 19 and later). The code around it (scaling, toString(36),
// padding) keeps working: the values are of the same kind, only no longer predictable.

export const SECURE_RANDOM_HELPER = 'secureRandom';

const helperSource = (typed: boolean) => `
function ${SECURE_RANDOM_HELPER}()${typed ? ': number' : ''} {
  // A float in [0, 1) like Math.random(), from the platform's cryptographic generator.
  return crypto.getRandomValues(new Uint32Array(1))[0]${typed ? '!' : ''} / 2 ** 32;
}
`;

export const javascriptSecureRandom: Codemod = {
  name: 'javascript/secure-random',
  rules: ['javascript.lang.crypto.insecure-random'],
  rewrite({ node, root, text, parser }) {
    const call = node!;
    if (kindOf(call) !== 'call_expression' || call.text().replace(/\s+/g, '') !== 'Math.random()') return refuse('the match is not a Math.random() call');
    return {
      edits: [replace(call, `${SECURE_RANDOM_HELPER}()`), ...jsHelper(root!, text, parser, SECURE_RANDOM_HELPER, helperSource, node!)],
      note: `Drew the value from the platform's cryptographic generator (${SECURE_RANDOM_HELPER}, Web Crypto) instead of Math.random(); it needs browsers or Node 19 and later.`,
    };
  },
};

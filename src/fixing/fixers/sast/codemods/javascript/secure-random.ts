import { builtinModules } from 'node:module';
import { kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { jsHelper, jsImport, replace } from '../edit-kit.ts';

// Math.random() for a token, code or secret → secureRandom(), a helper added to the module that returns a
// float in [0, 1) as Math.random() does, drawn from a cryptographic generator. The code around it (scaling,
// toString(36), padding) keeps working: the values are of the same kind, only no longer predictable. In a
// module that runs on Node (it loads Node's own modules or a server framework) the generator is the crypto
// module's randomBytes, there in every Node version; elsewhere (browser code) it is the Web Crypto `crypto`
// global, which Node has as a global only from version 19.

export const SECURE_RANDOM_HELPER = 'secureRandom';

const helperSource = (typed: boolean) => `
function ${SECURE_RANDOM_HELPER}()${typed ? ': number' : ''} {
  // A float in [0, 1) like Math.random(), from the platform's cryptographic generator.
  return crypto.getRandomValues(new Uint32Array(1))[0]${typed ? '!' : ''} / 2 ** 32;
}
`;

const nodeHelperSource = (cryptoModule: string) => (typed: boolean) => `
function ${SECURE_RANDOM_HELPER}()${typed ? ': number' : ''} {
  // A float in [0, 1) like Math.random(), from Node's cryptographic generator.
  return ${cryptoModule}.randomBytes(4).readUInt32BE(0) / 4294967296;
}
`;

/** Node's own modules, and the server frameworks that run only on Node. */
const SERVER_FRAMEWORKS = ['express', 'koa', 'fastify', 'hapi', '@hapi/hapi', 'restify', '@nestjs/common'];
const NODE_MODULES = [...builtinModules.filter((name) => !name.startsWith('_')), ...SERVER_FRAMEWORKS].map((name) => name.replace(/[/]/g, '\\/')).join('|');
/** A require() or import of one of them: the module runs on Node, not in a browser. */
const LOADS_NODE_MODULE = new RegExp(`(?:\\brequire\\(\\s*|\\bfrom\\s+|\\bimport\\s+)["'](?:node:)?(?:${NODE_MODULES})["']`);

/** The name the module already gives Node's crypto module (`const crypto = require("crypto")`), if any. */
function cryptoModuleName(text: string): string | undefined {
  const m = /(?:const|let|var)\s+(\w+)\s*=\s*require\(\s*["'](?:node:)?crypto["']\s*\)|import\s+(?:\*\s+as\s+)?(\w+)\s+from\s+["'](?:node:)?crypto["']/.exec(text);
  return m?.[1] ?? m?.[2];
}

export const javascriptSecureRandom: Codemod = {
  name: 'javascript/secure-random',
  rules: ['javascript.lang.crypto.insecure-random'],
  rewrite({ node, root, text, parser }) {
    const call = node!;
    if (kindOf(call) !== 'call_expression' || call.text().replace(/\s+/g, '') !== 'Math.random()') return refuse('the match is not a Math.random() call');
    if (LOADS_NODE_MODULE.test(text)) {
      const bound = cryptoModuleName(text);
      // A module that names something else `crypto` (crypto-js, say) gets Node's module under a name of its own.
      const name = bound ?? (/\bcrypto\b/.test(text) ? 'nodeCrypto' : 'crypto');
      return {
        edits: [
          replace(call, `${SECURE_RANDOM_HELPER}()`),
          ...(bound ? [] : jsImport(root!, text, name, 'crypto')),
          ...jsHelper(root!, text, parser, SECURE_RANDOM_HELPER, nodeHelperSource(name), node!),
        ],
        note: `Drew the value from Node's cryptographic generator (${SECURE_RANDOM_HELPER}, crypto.randomBytes) instead of Math.random().`,
      };
    }
    return {
      edits: [replace(call, `${SECURE_RANDOM_HELPER}()`), ...jsHelper(root!, text, parser, SECURE_RANDOM_HELPER, helperSource, node!)],
      note: `Drew the value from the platform's cryptographic generator (${SECURE_RANDOM_HELPER}, Web Crypto) instead of Math.random(); it needs browsers or Node 19 and later.`,
    };
  },
};

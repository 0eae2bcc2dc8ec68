import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, replace } from '../edit-kit.ts';

// jwt.verify(token, key, { algorithms: [..., "none"] }) → the list without "none"; when "none" was all
// of it, the algorithm the key evidently is for: the one this file signs with (jwt.sign(…, { algorithm }))
// or HS256 for a key named as a shared secret. Tokens the application signs verify as before; unsigned
// ones are rejected. Signing with "none" is refused: it needs a key chosen for the issuer.

const NONE = /^['"`]none['"`]$/i;

/** The algorithm a jwt.sign() call of this file names, when it names exactly one that is not "none". */
function signedWith(root: SgNode): string | null {
  const algorithms = new Set(
    root.findAll({ rule: { kind: 'pair', has: { field: 'key', regex: "^['\"]?algorithm['\"]?$" }, inside: { kind: 'call_expression', has: { field: 'function', regex: '(^|\\.)sign$' }, stopBy: 'end' } } } as never)
      .map((pair) => fieldOf(pair, 'value')!)
      .filter((value) => kindOf(value) === 'string' && !NONE.test(value.text()))
      .map((value) => value.text()),
  );
  return algorithms.size === 1 ? [...algorithms][0]! : null;
}

export const javascriptJwtAlgorithms: Codemod = {
  name: 'javascript/jwt-algorithms',
  rules: ['javascript.jwt.none-algorithm'],
  rewrite({ node, root }) {
    const call = node!;
    if (!/(^|\.)(verify|jwtVerify)$/.test(fieldOf(call, 'function')?.text() ?? '')) return refuse('tokens are signed with the "none" algorithm; choose a signing key and algorithm for the issuer');
    const pair = call.find({ rule: { kind: 'pair', has: { field: 'key', regex: "^['\"]?algorithms['\"]?$" } } } as never);
    const list = pair ? fieldOf(pair, 'value') : null;
    if (!list || kindOf(list) !== 'array') return refuse('the accepted algorithms are not written as a list here');
    const items = list.children().filter((c) => c.isNamed() && kindOf(c) !== 'comment');
    const kept = items.filter((item) => !NONE.test(item.text()));
    if (kept.length) return { edits: [replace(list, `[${kept.map((k) => k.text()).join(', ')}]`)], note: 'Stopped accepting unsigned ("none") tokens; the other algorithms stay.' };
    const key = argumentsOf(call)[1]?.text() ?? '';
    const signed = signedWith(root!);
    // jsonwebtoken signs with HS256 when given a shared secret and no algorithm
    const algorithm = signed ?? (/secret/i.test(key) && !/public|private|pem|cert/i.test(key) ? '"HS256"' : null);
    if (!algorithm) return refuse('the algorithm the key is for cannot be told from this file; list it in algorithms by hand');
    const guessed = signed ? '' : ' (the default for a shared secret; if the issuer signs with HS384 or HS512, list that instead)';
    return { edits: [replace(list, `[${algorithm}]`)], note: `Verified tokens with algorithms: [${algorithm}]${guessed} instead of accepting unsigned ("none") tokens.` };
  },
};

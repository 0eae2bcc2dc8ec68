import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod, type CodemodEdit } from '../codemod.ts';
import { appendArguments, argumentsOf, keywordArgument, removeArgument, replace } from '../edit-kit.ts';

// jwt.decode(token, …, verify=False / options={"verify_signature": False} / algorithms=["none"]) →
// jwt.decode(token, key, algorithms=[<the algorithm this file signs with>]): tokens this application
// issued decode as before; unsigned or forged ones raise. Never verify=True: PyJWT 2 ignores it.

export const pythonJwtVerify: Codemod = {
  name: 'python/jwt-verify',
  rules: ['python.jwt.unverified-decode'],
  rewrite({ node, root, text }) {
    const call = node!;
    if (!/decode$/.test(fieldOf(call, 'function')!.text())) return refuse('tokens are signed with the "none" algorithm; choose a signing key and algorithm for the issuer');
    const encode = root!.findAll({ rule: { kind: 'call', has: { field: 'function', regex: 'jwt\\.encode$' } } as never })[0];
    const signedWith = encode ? fieldOf(keywordArgument(encode, 'algorithm') ?? encode, 'value')?.text() : undefined;
    const algorithm = encode ? (signedWith && kindOf(fieldOf(keywordArgument(encode, 'algorithm')!, 'value')!) === 'string' ? signedWith : keywordArgument(encode, 'algorithm') ? undefined : '"HS256"') : undefined;
    if (!algorithm || /none/i.test(algorithm)) return refuse('the algorithm the tokens are signed with cannot be told from this file; pass jwt.decode the key and algorithms=[…] by hand');
    const positional = argumentsOf(call).filter((a) => kindOf(a) !== 'keyword_argument');
    const edits: CodemodEdit[] = [];
    const added: string[] = [];
    if (positional.length < 2 && !keywordArgument(call, 'key')) {
      const key = encode ? argumentsOf(encode).filter((a) => kindOf(a) !== 'keyword_argument')[1] : undefined;
      if (!key || !/^[\w.[\]'"]+$/.test(key.text()) || /^['"]/.test(key.text())) return refuse('the key that signs the tokens is not a name this call can reach');
      added.push(`${key.text()}`);
    }
    const verify = keywordArgument(call, 'verify');
    if (verify) edits.push(removeArgument(call, verify, text));
    const options = keywordArgument(call, 'options');
    if (options) {
      const pairs = fieldOf(options, 'value')!.children().filter((c) => kindOf(c) === 'pair');
      if (pairs.length !== 1 || !/verify_signature/.test(pairs[0]!.text())) return refuse('the decode options turn off more than the signature check; review them by hand');
      edits.push(removeArgument(call, options, text));
    }
    const algorithms = keywordArgument(call, 'algorithms');
    if (algorithms) edits.push(replace(fieldOf(algorithms, 'value')!, `[${algorithm}]`));
    else added.push(`algorithms=[${algorithm}]`);
    if (added.length) {
      // The key goes right after the token; algorithms at the end.
      const key = added.find((a) => !a.startsWith('algorithms='));
      if (key) edits.push({ start: positional[0]!.range().end.index, end: positional[0]!.range().end.index, text: `, ${key}` });
      const rest = added.filter((a) => a.startsWith('algorithms='));
      if (rest.length) edits.push(appendArguments(call, rest, text));
    }
    return { edits, note: `Decoded the token with its signature verified against the signing key and algorithms=[${algorithm}].` };
  },
};

import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { isLiteral, type Part } from '../built-string.ts';
import { refuse, type Codemod, type CodemodEdit } from '../codemod.ts';
import { argumentsOf, jsHelper, jsImport, replace } from '../edit-kit.ts';
import { builtParts, jsJoin, jsString, soleDeclaration } from './strings.ts';

// A file path joined from a folder and request data (path.join(dir, name), "/var/data/" + name,
// `./logs/${day}.log`) → pathInside(folder, …names), a helper added to the module: the same joined path for
// names inside the folder, an Error for one that would leave it ("../../etc/passwd"). A path that is wholly
// the request value has no folder to keep it in, and is refused.

export const PATH_INSIDE_HELPER = 'pathInside';

const helperSource = (typed: boolean) => `
function ${PATH_INSIDE_HELPER}(folder${typed ? ': string' : ''}, ...names${typed ? ': unknown[]' : ''})${typed ? ': string' : ''} {
  // path.join(folder, ...names), refused with an Error when the result would leave folder.
  const joined = path.join(folder, ...names.map(String));
  const base = path.resolve(folder);
  const full = path.resolve(joined);
  if (full !== base && !full.startsWith(base + path.sep)) throw new Error("the path leaves its folder");
  return joined;
}
`;

const NO_FOLDER = 'the path is not built as path.join(folder, name) or "folder/" + name, so there is no folder to keep it in; choose the folder the files live in';

/** The rewritten path expression: the folder and the names after it, through the helper. */
function insideFolder(path: SgNode): string | null {
  if (kindOf(path) === 'call_expression' && /^(path\.)?join$/.test(fieldOf(path, 'function')?.text() ?? '')) {
    const args = argumentsOf(path);
    return args.length >= 2 && !args.some((a) => kindOf(a) === 'spread_element') ? `${PATH_INSIDE_HELPER}(${args.map((a) => a.text()).join(', ')})` : null;
  }
  const parts = builtParts(path);
  if (!parts || !parts.length || !isLiteral(parts[0]!)) return null;
  const first = parts[0].literal;
  const cut = first.lastIndexOf('/');
  if (cut < 0) return null;
  const rest: Part[] = first.length > cut + 1 ? [{ literal: first.slice(cut + 1) }, ...parts.slice(1)] : parts.slice(1);
  if (!rest.length || rest.every(isLiteral)) return null;
  return `${PATH_INSIDE_HELPER}(${jsString(first.slice(0, cut + 1))}, ${jsJoin(rest)})`;
}

/** The path argument of the reported file operation. */
function pathOf(call: SgNode): SgNode | undefined {
  return kindOf(call) === 'call_expression' ? argumentsOf(call)[0] : undefined;
}

export const javascriptPathInside: Codemod = {
  name: 'javascript/path-inside',
  rules: ['javascript.lang.path-traversal.file-access'],
  rewrite({ node, root, text, parser }) {
    const path = pathOf(node!);
    if (!path) return refuse('the path is not the first argument of the call');
    let target = path;
    let related: SgNode | undefined;
    if (kindOf(path) === 'identifier') {
      const declared = soleDeclaration(path, node!);
      if (!declared) return refuse(`${path.text()} is assigned more than once or used elsewhere, so its join cannot be checked in one place`);
      target = declared.value;
      related = declared.declaration;
    }
    const rewritten = insideFolder(target);
    if (!rewritten) return refuse(NO_FOLDER);
    const edits: CodemodEdit[] = [
      { ...replace(target, rewritten), ...(related ? { related } : {}) },
      ...jsHelper(root!, text, parser, PATH_INSIDE_HELPER, helperSource, node!),
      ...jsImport(root!, text, 'path', 'node:path'),
    ];
    return {
      edits,
      note: `Joined the path with a ${PATH_INSIDE_HELPER}() helper, which gives the same path for names inside the folder and throws for one that leaves it.`,
    };
  },
};

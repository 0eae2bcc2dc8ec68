import { fieldOf } from '../../syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, pythonImport, replace } from '../edit-kit.ts';

// eval(text) of data → ast.literal_eval(text): literals (numbers, strings, lists, dicts, tuples, sets,
// booleans, None) give the same value; names, calls and operators raise ValueError instead of running.

export const pythonLiteralEval: Codemod = {
  name: 'python/literal-eval',
  rules: ['python.lang.code-injection.eval'],
  rewrite({ node, root, text }) {
    const call = node!;
    const fn = fieldOf(call, 'function')!.text();
    if (fn !== 'eval') return refuse(`${fn}() runs statements, which no data parser can stand for; dispatch on an allow-list instead`);
    if (argumentsOf(call).length !== 1) return refuse('eval() is given its own globals or locals, so the code is meant to reach names, not only literals');
    return {
      edits: [replace(fieldOf(call, 'function')!, 'ast.literal_eval'), ...pythonImport(root!, text, 'import ast', 'ast')],
      note: 'Evaluated the text with ast.literal_eval, which accepts literals only; expressions now raise ValueError.',
    };
  },
};

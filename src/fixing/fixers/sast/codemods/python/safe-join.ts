import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { lineStartOf, newlineOf } from '../../../shared/text-edits.ts';
import { allowsBelow } from '../../../../repo-facts.ts';
import { refuse, type Codemod, type CodemodContext, type CodemodEdit } from '../codemod.ts';
import { argumentsOf, callAround, functionAround, pythonHelper, pythonImport, pythonImportsModule, replace, statementOf } from '../edit-kit.ts';
import { soleAssignment } from './strings.ts';

// A file path joined from a folder and request data in a Flask view → werkzeug's safe_join(folder, …),
// which answers None for names that climb out of the folder ("../", absolute paths); the view then
// aborts with 404. Names inside the folder open the same file as before. Werkzeug before 2.0 has it in
// werkzeug.security (gone from 2.1), later versions in werkzeug.utils; Flask 1.x allows either, so unless
// the requirements pin one side the import tries the new place first and falls back. Outside Flask the
// join goes through a path_inside() helper added to the module, which answers the same joined path for
// names that stay in the folder (resolved with realpath, so symlinks and ".." count as they would when
// opened) and raises ValueError for one that leaves it; it compares path prefixes rather than calling
// os.path.commonpath, so it runs on Python 2 as well.

const PATH_INSIDE = `
def path_inside(folder, *names):
    """os.path.join(folder, *names), refused with ValueError when the result would leave folder."""
    path = os.path.join(folder, *names)
    base = os.path.realpath(folder)
    real = os.path.realpath(path)
    if real != base and not real.startswith(os.path.join(base, "")):
        raise ValueError("the path leaves its folder")
    return path
`;

/**
 * Where safe_join is imported from, by the Werkzeug (or Flask) the repository declares: werkzeug.security
 * for a Werkzeug pinned before 2.0, werkzeug.utils from 2.0 on, and both in turn where the declaration
 * allows either side (Flask 1.x allows Werkzeug 1 and 2.1+; an unpinned Werkzeug is the newest).
 */
async function werkzeugSafeJoin(context: CodemodContext): Promise<{ statement: (nl: string) => string; where: string }> {
  const { packages } = await context.facts();
  const werkzeug = packages['werkzeug'];
  const flask = packages['flask'];
  const utils = { statement: () => 'from werkzeug.utils import safe_join', where: 'werkzeug.utils' };
  const either = {
    statement: (nl: string) => `try:${nl}    from werkzeug.utils import safe_join${nl}except ImportError:  # Werkzeug before 2.0${nl}    from werkzeug.security import safe_join`,
    where: 'werkzeug.utils, or werkzeug.security on Werkzeug before 2.0',
  };
  if (werkzeug) {
    if (!allowsBelow(werkzeug, '2.0')) return utils;
    if (/^={2,3}\s*[01]\./.test(werkzeug.spec)) return { statement: () => 'from werkzeug.security import safe_join', where: `werkzeug.security, as the declared Werkzeug${werkzeug.spec} has it` };
    return either;
  }
  return allowsBelow(flask, '2.0') ? either : utils;
}

/** The folder and the parts joined to it: os.path.join(folder, …) or "folder/" + name. */
function joined(path: SgNode): { folder: string; parts: string[] } | string {
  if (kindOf(path) === 'call' && /^(os\.)?path\.join$/.test(fieldOf(path, 'function')?.text() ?? '')) {
    const args = argumentsOf(path);
    if (args.length < 2 || args.some((a) => /^(keyword_argument|list_splat|dictionary_splat)$/.test(kindOf(a)))) return 'the path join has no folder and name to keep apart';
    return { folder: args[0]!.text(), parts: args.slice(1).map((a) => a.text()) };
  }
  if (kindOf(path) === 'binary_operator' && fieldOf(path, 'operator')?.text() === '+') {
    const left = fieldOf(path, 'left')!;
    if (kindOf(left) === 'string' && !left.find({ rule: { kind: 'interpolation' } } as never) && /\/['"]$/.test(left.text())) return { folder: left.text(), parts: [fieldOf(path, 'right')!.text()] };
  }
  return 'the path is not built as os.path.join(folder, name) or "folder/" + name, so there is no folder to keep it in; choose the file from an allow-list';
}

export const pythonSafeJoin: Codemod = {
  name: 'python/safe-join',
  rules: ['python.lang.path-traversal.file-access'],
  async rewrite(context) {
    const { node, root, text } = context;
    const call = callAround(node!, ['call'])!;
    const fn = fieldOf(call, 'function')?.text() ?? '';
    if (/send_from_directory$/.test(fn)) return refuse('send_from_directory() already refuses names outside its folder; if the folder itself comes from the request, fix that by hand');
    const path = argumentsOf(call)[0];
    if (!path || kindOf(path) === 'keyword_argument') return refuse('the path is not the first argument');
    const flask = pythonImportsModule(root!, 'flask');
    if (flask && !functionAround(call)) return refuse('the file is opened outside a view, where there is no request to answer with 404');

    const origin = kindOf(path) === 'identifier' ? soleAssignment(path, call) : null;
    if (kindOf(path) === 'identifier' && !origin) return refuse(`${path.text()} is assigned more than once or used elsewhere, so its join cannot be checked in one place`);
    const built = joined(origin ? origin.value : path);
    if (typeof built === 'string') return refuse(built);
    if (/\brequest\b/.test(built.folder)) return refuse('the folder itself comes from the request; choose it on the server');
    if (!flask) {
      const target = origin ? origin.value : path;
      return {
        edits: [
          { ...replace(target, `path_inside(${[built.folder, ...built.parts].join(', ')})`), ...(origin ? { related: origin.statement } : {}) },
          ...pythonHelper(root!, text, 'path_inside', PATH_INSIDE, target),
          ...pythonImport(root!, text, 'import os', 'os'),
        ],
        note: 'Joined the path with a path_inside() helper, which gives the same path for names inside the folder and raises ValueError for one that leaves it.',
      };
    }

    const werkzeug = await werkzeugSafeJoin(context);
    const safe = `safe_join(${[built.folder, ...built.parts].join(', ')})`;
    const nl = newlineOf(text);
    const statement = statementOf(origin ? origin.statement : call);
    const lineStart = lineStartOf(text, statement.range().start.index);
    const indent = text.slice(lineStart, statement.range().start.index);
    if (!/^[ \t]*$/.test(indent)) return refuse('the statement shares its line with another, so the check cannot go before it');
    const unit = indent.includes('\t') ? '\t' : '    ';
    const check = (name: string) => `if ${name} is None:${nl}${indent}${unit}abort(404)`;

    const edits: CodemodEdit[] = [];
    if (origin) {
      const name = path.text();
      const end = origin.statement.range().end.index;
      edits.push({ ...replace(origin.value, safe), related: origin.statement }, { start: end, end, text: `${nl}${indent}${check(name)}`, related: origin.statement });
    } else {
      const scope = functionAround(call)!.text();
      let name = 'safe_path';
      for (let n = 2; new RegExp(`\\b${name}\\b`).test(scope); n++) name = `safe_path_${n}`;
      const at = statement.range().start.index;
      edits.push({ start: at, end: at, text: `${name} = ${safe}${nl}${indent}${check(name)}${nl}${indent}` }, replace(path, name));
    }
    const imports = [...pythonImport(root!, text, werkzeug.statement(nl), 'safe_join'), ...pythonImport(root!, text, 'from flask import abort', 'abort')];
    if (imports.length === 2) edits.push({ ...imports[0]!, text: imports[0]!.text + imports[1]!.text });
    else edits.push(...imports);
    return { edits, note: `Joined the path with Werkzeug's safe_join() (${werkzeug.where}), which refuses names that leave the folder; such requests now get 404.` };
  },
};

import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, pythonImport, replace } from '../edit-kit.ts';

// debug=True / DEBUG = True / app.debug = True → on only when the environment asks for it
// (FLASK_DEBUG=1, or DJANGO_DEBUG=1 in a Django settings module), so development keeps its debugger.

export const pythonDebugFromEnv: Codemod = {
  name: 'python/debug-from-env',
  rules: ['python.flask.config.debug-enabled', 'python.django.config.debug-enabled'],
  rewrite({ node, root, text, file }) {
    const match = node!;
    const variable = /settings/.test(file) || /^\s*from\s+django\b/m.test(text) ? 'DJANGO_DEBUG' : 'FLASK_DEBUG';
    const fromEnv = `os.environ.get("${variable}") == "1"`;
    let target = null;
    if (kindOf(match) === 'call') {
      target = argumentsOf(match).map((a) => (kindOf(a) === 'keyword_argument' && fieldOf(a, 'name')?.text() === 'debug' ? fieldOf(a, 'value') : null)).find(Boolean) ?? null;
    } else if (kindOf(match) === 'assignment') target = fieldOf(match, 'right');
    if (!target || target.text() !== 'True') return refuse('debug mode is not switched on with a plain True here');
    return {
      edits: [replace(target, fromEnv), ...pythonImport(root!, text, 'import os', 'os')],
      note: `Debug mode now follows ${variable} (on only when it is "1"); set it in development.`,
    };
  },
};

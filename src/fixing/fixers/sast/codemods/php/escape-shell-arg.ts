import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { replace } from '../edit-kit.ts';

// Request data concatenated into a shell command → each such value through escapeshellarg(): the shell
// hands the program the same single argument for a value without shell syntax, and the whole value as
// one argument, never as commands, for one with it.

const SUPERGLOBAL = /^\$_(GET|POST|REQUEST|COOKIE|FILES|SERVER)\b/;

/** Variables the file assigns from a superglobal (`$dir = $_GET['dir']`). */
function requestVariables(root: SgNode): Set<string> {
  const names = new Set<string>();
  for (const assignment of root.findAll({ rule: { kind: 'assignment_expression' } } as never)) {
    const left = fieldOf(assignment, 'left');
    const right = fieldOf(assignment, 'right');
    if (left && kindOf(left) === 'variable_name' && right && SUPERGLOBAL.test(right.text())) names.add(left.text());
  }
  return names;
}

/** The request values among the operands of the command's string concatenations. */
function concatenatedValues(command: SgNode, variables: Set<string>): SgNode[] | string {
  const values: SgNode[] = [];
  for (const n of command.findAll({ rule: { any: [{ kind: 'subscript_expression' }, { kind: 'variable_name' }] } } as never)) {
    const isValue = (kindOf(n) === 'subscript_expression' && SUPERGLOBAL.test(n.text())) || (kindOf(n) === 'variable_name' && variables.has(n.text()));
    if (!isValue || kindOf(n.parent()!) === 'subscript_expression') continue;
    const parent = n.parent()!;
    if (kindOf(parent) === 'encapsed_string') return 'a request value is interpolated inside the command string; concatenate escapeshellarg() of it instead';
    if (kindOf(parent) !== 'binary_expression' || fieldOf(parent, 'operator')?.text() !== '.') continue;
    // A value already inside quotes of the command would end up quoted twice.
    const left = fieldOf(parent, 'left');
    if (left && left.range().end.index <= n.range().start.index && /['"]\s*["']$/.test(left.text())) {
      return 'the value sits inside quotes of the command; remove those quotes and pass escapeshellarg() of it';
    }
    values.push(n);
  }
  return values;
}

export const phpEscapeShellArg: Codemod = {
  name: 'php/escape-shell-arg',
  rules: ['php.lang.command-injection.superglobal-in-command'],
  rewrite({ node, root }) {
    const command = node!;
    if (kindOf(command) === 'shell_command_expression') return refuse('the command is a backtick expression; call shell_exec() with escapeshellarg() of each value instead');
    const values = concatenatedValues(command, requestVariables(root!));
    if (typeof values === 'string') return refuse(values);
    if (!values.length) return refuse('no request value is concatenated into the command');
    return {
      edits: values.map((value) => replace(value, `escapeshellarg(${value.text()})`)),
      note: 'Quoted each request value of the shell command with escapeshellarg().',
    };
  },
};

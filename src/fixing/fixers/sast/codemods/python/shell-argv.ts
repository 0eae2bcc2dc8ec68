import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { argumentList, isLiteral, type Part } from '../built-string.ts';
import { pythonBelow, pythonTwoEvidence } from '../app-facts.ts';
import { refuse, type Codemod, type CodemodEdit } from '../codemod.ts';
import { argumentsOf, functionAround, keywordArgument, pythonImport, removeArgument, removeStatement, replace } from '../edit-kit.ts';
import { operandHelper, optionGuard, OPERAND_HELPER } from './end-of-options.ts';
import { builtValue, moduleConstant, pythonJoin, quoteStyle } from './strings.ts';

// A shell command built from a fixed program and values → an argument list run without a shell:
// os.system(cmd) → subprocess.call([...]), os.popen(cmd).read() → subprocess.run([...], stdout=PIPE,
// text=True).stdout, subprocess.*(cmd, shell=True) → subprocess.*([...]). Each value stays one
// argument, so spaces, `;` or `$(…)` in it no longer reach a shell, and "--" before the first value ends
// the program's options, so a value starting with "-" is no option either; the program sees the same
// arguments for ordinary values.

function argvText(args: Part[][], like: string, fStrings: boolean): string {
  const asText = (part: Part): Part => (isLiteral(part) || !/^(int|float)\(/.test(part.expr) ? part : { expr: `str(${part.expr})` });
  return `[${args.map((arg) => pythonJoin(arg.map(asText), like, { fStrings })).join(', ')}]`;
}

/**
 * Why a command's value would not be the same built at the call instead of at its assignment: it calls
 * something (other than str/int/float), or a name it reads is assigned again after it.
 */
function whyNotMovable(value: SgNode, statement: SgNode): string | null {
  const call = value.findAll({ rule: { kind: 'call' } } as never).find((c) => !/^(str|int|float)$/.test(fieldOf(c, 'function')?.text() ?? ''));
  if (call) return `calls ${fieldOf(call, 'function')?.text() ?? 'a function'}`;
  const names = new Set(value.findAll({ rule: { kind: 'identifier' } } as never).map((n) => n.text()));
  const scope = functionAround(statement);
  if (!scope) return 'is not inside a function';
  const after = statement.range().end.index;
  const targets = scope.findAll({ rule: { any: [{ kind: 'assignment' }, { kind: 'augmented_assignment' }, { kind: 'for_statement' }, { kind: 'named_expression' }] } } as never);
  for (const target of targets) {
    if (target.range().start.index < after) continue;
    const bound = fieldOf(target, 'left') ?? fieldOf(target, 'name');
    const rebound = bound?.findAll({ rule: { kind: 'identifier' } } as never).map((n) => n.text()) ?? [];
    if (bound && kindOf(bound) === 'identifier') rebound.push(bound.text());
    const name = rebound.find((n) => names.has(n));
    if (name) return `${name} is assigned again after it`;
  }
  return null;
}

export const pythonShellArgv: Codemod = {
  name: 'python/shell-argv',
  rules: ['python.lang.command-injection.shell-command'],
  async rewrite(context) {
    const { node, root, text } = context;
    const call = node!;
    const fn = fieldOf(call, 'function')!.text();
    const command = argumentsOf(call)[0];
    if (!command || kindOf(command) === 'keyword_argument') return refuse('the command is not the first argument');
    if (kindOf(command) === 'list') return refuse('the command is already an argument list; the value chooses an argument, which needs an allow-list check');
    const shell = keywordArgument(call, 'shell');
    const isSubprocess = /^subprocess\.(call|run|check_call|check_output|Popen|getoutput|getstatusoutput)$/.test(fn);
    if (isSubprocess && (!shell || fieldOf(shell, 'value')?.text() !== 'True')) return refuse('the program itself comes from the input; check it against an allow-list');
    if (/getoutput|getstatusoutput/.test(fn)) return refuse(`${fn} always runs a shell; use subprocess.run with an argument list`);

    const constant = (name: string) => moduleConstant(root!, name);
    const built = builtValue(command, call, constant);
    if ('reassigned' in built) return refuse(`${command.text()} is assigned more than once or used elsewhere, so the command cannot be rebuilt safely`);
    const { parts, target, origin } = built;
    const related = origin?.statement;
    const unmovable = origin && parts ? whyNotMovable(origin.value, origin.statement) : null;
    if (unmovable) return refuse(`the command is built before the call and ${unmovable}, so building it in the call could change it`);
    if (!parts) return refuse('the whole command comes from a value, so there is no fixed program to run; check it against an allow-list');
    const split = argumentList(parts);
    if ('refuse' in split) return refuse(split.refuse);
    // Without a shell a value can still be read as an option: "--" before the first one ends the options,
    // or, for a program that does not read "--", each such value is checked by as_operand().
    const guard = optionGuard(split);
    if ('refuse' in guard) return refuse(guard.refuse);
    const args =
      'endAt' in guard
        ? [...split.slice(0, guard.endAt), [{ literal: '--' }], ...split.slice(guard.endAt)]
        : 'wrap' in guard
          ? split.map((arg, i) => (guard.wrap.includes(i) ? [{ expr: `${OPERAND_HELPER}(${(arg[0] as { expr: string }).expr})` }, ...arg.slice(1)] : arg))
          : split;
    const guardEdits = 'wrap' in guard ? operandHelper(root!, text, node!) : [];
    const list = argvText(args, quoteStyle(target), !(await pythonBelow(context, text, '3.6')));
    // The list goes into the call itself, where the rule sees a fixed program; the variable that only
    // carried the command string goes with its assignment.
    const edits: CodemodEdit[] = related ? [removeStatement(related, text)] : [];
    if (isSubprocess) {
      edits.push(replace(command, list), removeArgument(call, shell!, text), ...guardEdits);
      return { edits, note: 'Ran the command from an argument list without a shell, so each value stays one argument.' };
    }
    if (fn === 'os.system') {
      if (kindOf(call.parent()!) !== 'expression_statement') return refuse("the exit status of os.system() is used, and subprocess.call() reports it differently; rewrite by hand");
      edits.push(replace(call, `subprocess.call(${list})`));
    } else if (fn === 'os.popen') {
      const read = call.parent();
      const readCall = read?.parent();
      if (!read || kindOf(read) !== 'attribute' || fieldOf(read, 'attribute')?.text() !== 'read' || !readCall || kindOf(readCall) !== 'call' || argumentsOf(call).length > 1) {
        return refuse('the pipe os.popen() opens is used for more than reading its output; rewrite it with subprocess by hand');
      }
      // subprocess.run(text=) is Python 3.7, run() 3.5; communicate() reads the output the same way everywhere.
      const two = await pythonTwoEvidence(context, text);
      const old = two ?? (await pythonBelow(context, text, '3.7'));
      edits.push(
        replace(
          readCall,
          two
            ? `subprocess.Popen(${list}, stdout=subprocess.PIPE, universal_newlines=True).communicate()[0]`
            : old
              ? `subprocess.run(${list}, stdout=subprocess.PIPE, universal_newlines=True).stdout`
              : `subprocess.run(${list}, stdout=subprocess.PIPE, text=True).stdout`,
        ),
      );
    } else return refuse(`${fn} is not rewritten by this codemod`);
    edits.push(...guardEdits, ...pythonImport(root!, text, 'import subprocess', 'subprocess'));
    return { edits, note: 'Ran the command from an argument list without a shell, so each value stays one argument.' };
  },
};

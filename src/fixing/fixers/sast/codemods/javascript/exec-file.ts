import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { argumentList } from '../built-string.ts';
import { refuse, type Codemod, type CodemodEdit } from '../codemod.ts';
import { argumentsOf, removeStatement, replace, statementOf } from '../edit-kit.ts';
import { builtParts, jsJoin, soleDeclaration } from './strings.ts';

// child_process exec/execSync of a command line built from a fixed program and values →
// execFile/execFileSync with an argument list, run without a shell: exec("ping -c 1 " + host, cb) →
// execFile("ping", ["-c", "1", host], cb). Each value stays one argument, so `;`, `|` or `$(…)` in it no
// longer reach a shell; the program gets the same arguments for ordinary values, and the callback, options
// and return value keep their meaning. Commands that use shell syntax themselves are refused.

const CHILD_PROCESS = `['"](node:)?child_process['"]`;
/** `const { exec, … } = require("child_process")` or `import { exec, … } from "child_process"`. */
const NAMED_BINDING = new RegExp(`^\\s*(?:(?:const|let|var)\\s*\\{([^}]*)\\}\\s*=\\s*require\\(\\s*${CHILD_PROCESS}\\s*\\)|import\\s*\\{([^}]*)\\}\\s*from\\s*${CHILD_PROCESS})`);

const namesIn = (braces: string) => braces.split(',').map((n) => n.trim()).filter(Boolean);

/** The edit that makes `execFile` callable under its own name next to `exec`, or why it cannot. */
function bindNamed(root: SgNode, replacement: string, from: string): CodemodEdit[] | string {
  for (const statement of root.children()) {
    const found = NAMED_BINDING.exec(statement.text());
    if (!found) continue;
    const braces = found[1] ?? found[3]!;
    const names = namesIn(braces);
    if (!names.includes(from)) continue;
    if (names.includes(replacement)) return [];
    // after the last name, before any trailing comma or space
    const lastEnd = statement.range().start.index + statement.text().indexOf('{') + 1 + braces.replace(/\s*,?\s*$/, '').length;
    return [{ start: lastEnd, end: lastEnd, text: `, ${replacement}`, related: statement }];
  }
  return `${from} is not imported by name from child_process in this file`;
}

/** Whether `object` is the child_process module (`require("child_process")` or a name bound to it). */
function isChildProcess(object: SgNode, text: string): boolean {
  if (new RegExp(`^require\\(\\s*${CHILD_PROCESS}\\s*\\)$`).test(object.text())) return true;
  if (kindOf(object) !== 'identifier') return false;
  const name = object.text().replace(/\$/g, '\\$');
  return new RegExp(`(^|\\n)\\s*((const|let|var)\\s+${name}\\s*=\\s*require\\(\\s*${CHILD_PROCESS}\\s*\\)|import\\s+(\\*\\s+as\\s+)?${name}\\s+from\\s*${CHILD_PROCESS})`).test(text);
}

export const javascriptExecFile: Codemod = {
  name: 'javascript/exec-file',
  rules: ['javascript.lang.command-injection.shell-command'],
  rewrite({ node, root, text }) {
    // The finding names the call, or (focused) its command argument.
    const call = kindOf(node!) === 'call_expression' ? node! : node!.parent()?.parent();
    if (!call || kindOf(call) !== 'call_expression') return refuse('the command is not an argument of a call');
    const args = argumentsOf(call);
    const command = args[0];
    if (!command || (call !== node && command.range().start.index !== node!.range().start.index)) return refuse('the command is not the first argument');
    const fn = fieldOf(call, 'function')!;
    const name = kindOf(fn) === 'member_expression' ? fieldOf(fn, 'property')!.text() : fn.text();
    if (name !== 'exec' && name !== 'execSync') return refuse(`${name}() already takes the program and its arguments apart; check the program or the shell option against an allow-list by hand`);
    if (args.slice(1).some((a) => kindOf(a) === 'object' && /\bshell\s*:/.test(a.text()))) return refuse('the call chooses its shell in its options; rewrite it by hand');
    const replacement = name === 'exec' ? 'execFile' : 'execFileSync';

    const edits: CodemodEdit[] = [];
    if (kindOf(fn) === 'member_expression') {
      if (!isChildProcess(fieldOf(fn, 'object')!, text)) return refuse(`${fn.text()} is not child_process.${name}`);
      edits.push(replace(fieldOf(fn, 'property')!, replacement));
    } else if (kindOf(fn) === 'identifier') {
      const binding = bindNamed(root!, replacement, name);
      if (typeof binding === 'string') return refuse(binding);
      edits.push(...binding, replace(fn, replacement));
    } else return refuse(`${fn.text()} is not child_process.${name}`);

    let built: SgNode = command;
    if (kindOf(command) === 'identifier') {
      const origin = soleDeclaration(command, call);
      if (!origin) return refuse(`${command.text()} is declared more than once or used elsewhere, so the command cannot be rebuilt safely`);
      const declaration = statementOf(origin.declaration);
      // Built in the statement right before the call, with no call of its own: the same value at the call.
      if (declaration.next()?.range().start.index !== statementOf(call).range().start.index || declaration.findAll({ rule: { kind: 'variable_declarator' } } as never).length !== 1 || origin.value.find({ rule: { kind: 'call_expression' } } as never)) {
        return refuse(`${command.text()} is built away from the call, so building it in the call could change it; pass execFile its program and arguments by hand`);
      }
      built = origin.value;
      edits.push(removeStatement(declaration, text));
    }
    const parts = builtParts(built);
    if (!parts) return refuse('the whole command comes from a value, so there is no fixed program to run; check it against an allow-list');
    const list = argumentList(parts);
    if ('refuse' in list) return refuse(list.refuse);
    const like = built.text().startsWith("'") || built.find({ rule: { kind: 'string' } } as never)?.text().startsWith("'") ? "'" : '"';
    const [program, ...rest] = list.map((arg) => jsJoin(arg, like));
    edits.push(replace(command, `${program}, [${rest.join(', ')}]`));
    return { edits, note: `Ran the program with ${replacement}() and an argument list instead of a shell command line, so each value stays one argument.` };
  },
};

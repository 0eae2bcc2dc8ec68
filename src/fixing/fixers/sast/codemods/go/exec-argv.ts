import { fieldOf } from '../../../shared/syntax.ts';
import { argumentList } from '../built-string.ts';
import { refuse, type Codemod, type CodemodEdit } from '../codemod.ts';
import { argumentsOf } from '../edit-kit.ts';
import { dropImportLeftUnused } from './imports.ts';
import { builtParts, goJoin } from './strings.ts';

// exec.Command("sh", "-c", "ping -c 1 " + host) → exec.Command("ping", "-c", "1", host): the program
// gets the same arguments for values without spaces or shell syntax, and a value with them stays one
// argument instead of becoming commands. Refused when the command line itself uses the shell (pipes,
// redirections, quotes, variables, globs).

export const goExecArgv: Codemod = {
  name: 'go/exec-argv',
  rules: ['go.os-exec.command-injection.shell-command'],
  rewrite({ node, root, text }) {
    const call = node!;
    const withContext = fieldOf(call, 'function')!.text() === 'exec.CommandContext';
    const args = argumentsOf(call);
    const shellAt = withContext ? 1 : 0;
    if (args.length !== shellAt + 3) return refuse('the shell gets more than one command line; run each program with exec.Command by hand');
    const line = args[shellAt + 2]!;
    const parts = builtParts(line, true);
    if (!parts) return refuse('the command line is not built in a way this codemod reads (+ or fmt.Sprintf with %s, %d, %v)');
    const argv = argumentList(parts);
    if ('refuse' in argv) return refuse(argv.refuse);
    const builtWithSprintf = line.text().includes('fmt.Sprintf(');
    const rendered = argv.map((pieces) => goJoin(pieces, builtWithSprintf));
    const start = args[shellAt]!.range().start.index;
    const edits: CodemodEdit[] = [
      { start, end: line.range().end.index, text: rendered.join(', ') },
      ...(builtWithSprintf ? dropImportLeftUnused(root!, text, 'fmt', line, rendered) : []),
    ];
    return { edits, note: `Ran ${rendered[0]} directly with its arguments instead of through a shell.` };
  },
};

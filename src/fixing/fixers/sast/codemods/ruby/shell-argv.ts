import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { argumentList, isLiteral, type Part } from '../built-string.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, replace } from '../edit-kit.ts';
import { builtParts, rubyString, rubyValue } from './strings.ts';

// A command line built with interpolation and run through the shell (system, exec, spawn, Open3's
// capture and popen, backticks) → the program and its arguments passed apart, which Ruby runs without a
// shell: the same arguments for values without spaces or shell syntax, and a value with them stays one
// argument. Each value is its text (to_s), as interpolation made it. Backticks become IO.popen(argv,
// &:read), which returns the output the same way. Refused when the line itself uses the shell.

const ARGV_METHODS = /^(system|exec|spawn|capture2|capture2e|capture3|popen3|popen2|popen2e)$/;

function rubyArgument(pieces: Part[]): string {
  if (pieces.length === 1) {
    const piece = pieces[0]!;
    if (isLiteral(piece)) return rubyString(piece.literal);
    return /^[\w.:\[\]@]+$/.test(piece.expr) ? `${piece.expr}.to_s` : `(${piece.expr}).to_s`;
  }
  return rubyValue(pieces);
}

export const rubyShellArgv: Codemod = {
  name: 'ruby/shell-argv',
  rules: ['ruby.lang.command-injection.shell-command'],
  rewrite({ node }) {
    const site = node!;
    const subshell = kindOf(site) === 'subshell';
    let line = site;
    if (!subshell) {
      const name = fieldOf(site, 'method')?.text() ?? '';
      if (!ARGV_METHODS.test(name)) return refuse(`${name} takes a command line only; run the program with system or Open3 and separate arguments`);
      const args = argumentsOf(site);
      if (args.length !== 1) return refuse('the command gets an environment or options besides the line; split the line by hand');
      line = args[0]!;
    }
    const parts = builtParts(line);
    if (!parts) return refuse('the command line is not built in a way this codemod reads (interpolation or +)');
    const argv = argumentList(parts);
    if ('refuse' in argv) return refuse(argv.refuse);
    const rendered = argv.map(rubyArgument);
    return {
      edits: [replace(line, subshell ? `IO.popen([${rendered.join(', ')}], &:read)` : rendered.join(', '))],
      note: `Ran ${rendered[0]} with its arguments apart, without a shell.`,
    };
  },
};

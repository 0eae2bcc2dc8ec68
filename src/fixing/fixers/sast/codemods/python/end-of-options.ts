import type { SgNode } from '@ast-grep/napi';
import { kindOf } from '../../../shared/syntax.ts';
import { isLiteral, type Part } from '../built-string.ts';
import { refuse, type Codemod, type CodemodEdit } from '../codemod.ts';
import { argumentsOf, insertAt, pythonHelper, replace } from '../edit-kit.ts';

// A value passed as an argument of a fixed program can start with "-" and be read as an option
// (CWE-88). Where the program ends its options at "--" (getopt, argparse), "--" goes before the first
// such value: `["ping", "-c", "4", ip]` → `["ping", "-c", "4", "--", ip]`. Where it does not (nslookup,
// echo, interpreters that hand their arguments to a script), or an option is written after the value,
// each such value goes through `as_operand()`, which refuses one that starts with "-". Every other value
// is passed as before.

/** Programs that do not end their options at "--", or pass it on to a script. */
const NO_END_OF_OPTIONS = /^(?:.*\/)?(?:echo|printf|nslookup|dig|java|javaw|python[\d.]*|pypy[\d.]*|node|nodejs|deno|bun|ruby|perl|php|Rscript|osascript|cmd(?:\.exe)?|powershell(?:\.exe)?|pwsh)$/;

export const OPERAND_HELPER = 'as_operand';
const HELPER_SOURCE = `
def as_operand(value):
    """A command argument that a program cannot read as an option."""
    value = str(value)
    if value.startswith("-"):
        raise ValueError("a command argument may not start with '-'")
    return value
`;

export function operandHelper(root: SgNode, text: string, usedBy: SgNode): CodemodEdit[] {
  return pythonHelper(root, text, OPERAND_HELPER, HELPER_SOURCE, usedBy);
}

/** How the values of an argument list (the program first) are kept from being options. */
export type OptionGuard = { none: true } | { endAt: number } | { wrap: number[] } | { refuse: string };

const fixedText = (arg: Part[]) => (arg.every(isLiteral) ? arg.map((p) => p.literal).join('') : null);

export function optionGuard(args: Part[][]): OptionGuard {
  const program = fixedText(args[0] ?? []);
  if (program === null) return { refuse: 'the program is not a fixed name' };
  // A value that starts the argument could start with "-"; fixed text before it cannot.
  const risky = args.flatMap((arg, i) => (i > 0 && arg[0] && !isLiteral(arg[0]) && !new RegExp(`^${OPERAND_HELPER}\\(`).test(arg[0].expr) ? [i] : []));
  if (!risky.length) return { none: true };
  const first = risky[0]!;
  if (args.slice(1, first).some((arg) => fixedText(arg) === '--')) return { none: true };
  const laterOption = args.slice(first + 1).some((arg) => fixedText(arg)?.startsWith('-'));
  if (NO_END_OF_OPTIONS.test(program) || laterOption) return { wrap: risky };
  return { endAt: first };
}

function unquote(literal: string): string | null {
  return /^["']([^"'\\]*)["']$/.exec(literal)?.[1] ?? null;
}

export const pythonEndOfOptions: Codemod = {
  name: 'python/end-of-options',
  rules: ['python.lang.command-injection.argument-injection'],
  rewrite({ node, root, text }) {
    const list = argumentsOf(node!)[0];
    if (!list || !['list', 'tuple'].includes(kindOf(list))) return refuse('the argument list is not written in the call');
    const items = list.children().filter((c) => c.isNamed() && kindOf(c) !== 'comment');
    const program = unquote(items[0]?.text() ?? '');
    const guard = optionGuard(items.map((item) => [unquote(item.text()) === null ? { expr: item.text() } : { literal: unquote(item.text())! }]));
    if ('refuse' in guard) return refuse(guard.refuse);
    if ('none' in guard) return refuse('no argument starts with a value');
    if ('endAt' in guard) {
      const quote = items[0]!.text()[0];
      return {
        edits: [insertAt(items[guard.endAt]!.range().start.index, `${quote}--${quote}, `)],
        note: `Put "--" before the first value passed to ${program}, so a value starting with "-" is an operand, not an option.`,
      };
    }
    return {
      edits: [...guard.wrap.map((i) => replace(items[i]!, `${OPERAND_HELPER}(${items[i]!.text()})`)), ...operandHelper(root!, text, node!)],
      note: `${program} does not end its options at "--", so each value passed to it goes through ${OPERAND_HELPER}(), which refuses one starting with "-".`,
    };
  },
};

import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { dependsOn } from '../app-facts.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, functionAround, pythonImport, replace } from '../edit-kit.ts';

// eval(text) of data → ast.literal_eval(text): literals (numbers, strings, lists, dicts, tuples, sets,
// booleans, None) give the same value; names, calls and operators raise ValueError instead of running.
// Where the code uses what eval returns as code (calls it, or reads an attribute no literal has, such as
// `model.objects`), eval is reaching a class, function or module by name: no literal can stand for it.

/** The public attributes of the types a literal evaluates to (str, bytes, int, float, complex, list, tuple, dict, set, bool). */
const LITERAL_ATTRIBUTES = new Set(
  (
    'add append as_integer_ratio bit_count bit_length capitalize casefold center clear conjugate copy count decode denominator ' +
    'difference difference_update discard encode endswith expandtabs extend find format format_map from_bytes fromhex fromkeys get ' +
    'hex imag index insert intersection intersection_update is_integer isalnum isalpha isascii isdecimal isdigit isdisjoint ' +
    'isidentifier islower isnumeric isprintable isspace issubset issuperset istitle isupper items join keys ljust lower lstrip ' +
    'maketrans numerator partition pop popitem real remove removeprefix removesuffix replace reverse rfind rindex rjust rpartition ' +
    'rsplit rstrip setdefault sort split splitlines startswith strip swapcase symmetric_difference symmetric_difference_update ' +
    'title to_bytes translate union update upper values zfill'
  ).split(' '),
);

/** How an expression's value is used as code, if it is: called, or asked for an attribute no literal has. */
function usedAsCode(value: SgNode): string | null {
  const parent = value.parent();
  if (!parent) return null;
  if (kindOf(parent) === 'call' && fieldOf(parent, 'function')?.id() === value.id()) return `${value.text()} is called`;
  if (kindOf(parent) === 'attribute' && fieldOf(parent, 'object')?.id() === value.id()) {
    const attribute = fieldOf(parent, 'attribute')!.text();
    if (!LITERAL_ATTRIBUTES.has(attribute)) return `${parent.text()} is read, which no literal has`;
  }
  return null;
}

/** The uses of eval's result as code: of the call itself, or of the variable it is assigned to in its function. */
function codeUse(call: SgNode): string | null {
  const direct = usedAsCode(call);
  if (direct) return direct;
  const assignment = call.parent();
  if (!assignment || kindOf(assignment) !== 'assignment' || fieldOf(assignment, 'right')?.id() !== call.id()) return null;
  const target = fieldOf(assignment, 'left')!;
  if (kindOf(target) !== 'identifier') return null;
  const scope = functionAround(call) ?? call.getRoot().root();
  const after = assignment.range().end.index;
  for (const use of scope.findAll({ rule: { kind: 'identifier', regex: `^${target.text()}$` } } as never)) {
    if (use.range().start.index < after) continue;
    const how = usedAsCode(use);
    if (how) return how;
  }
  return null;
}

/** Words that say the evaluated text is arithmetic: a calculator's expression, a formula, a sum. */
const ARITHMETIC = /(expr|formula|calc|math|equation|arithm|compute|operation|operand|sum\b|problem|evaluat)/i;

/**
 * Why the evaluated text is meant to be arithmetic, or null: the argument's name, the function's name or
 * the text of the function around it (a form asking for an expression) says so. literal_eval rejects
 * `2 + 3 * 4`, so there it would remove the feature.
 */
function arithmeticIntent(call: SgNode): string | null {
  const argument = argumentsOf(call)[0]!;
  if (ARITHMETIC.test(argument.text())) return `the text evaluated is ${argument.text()}`;
  const scope = functionAround(call);
  const name = scope ? fieldOf(scope, 'name')?.text() : undefined;
  if (name && ARITHMETIC.test(name)) return `it is evaluated in ${name}()`;
  const words = scope?.findAll({ rule: { kind: 'string' } } as never).map((s) => s.text()).find((s) => /\b(mathemati|calculat|arithmetic|expression|formula|equation)/i.test(s));
  return words ? 'the page around it asks for an expression to calculate' : null;
}

export const pythonLiteralEval: Codemod = {
  name: 'python/literal-eval',
  rules: ['python.lang.code-injection.eval'],
  async rewrite({ node, root, text, readFile, files, facts }) {
    const call = node!;
    const fn = fieldOf(call, 'function')!.text();
    if (fn !== 'eval') return refuse(`${fn}() runs statements, which no data parser can stand for; dispatch on an allow-list instead`);
    if (argumentsOf(call).length !== 1) return refuse('eval() is given its own globals or locals, so the code is meant to reach names, not only literals');
    const use = codeUse(call);
    if (use) return refuse(`eval() reaches code by name here (${use}), which no literal can stand for; map the accepted names to their objects in an allow-list instead`);
    const arithmetic = arithmeticIntent(call);
    if (arithmetic) {
      if (await dependsOn({ readFile, files, facts }, 'simpleeval')) {
        return {
          edits: [replace(fieldOf(call, 'function')!, 'simple_eval'), ...pythonImport(root!, text, 'from simpleeval import simple_eval', 'simple_eval')],
          note: `Evaluated the expression with simpleeval's simple_eval (already a dependency), which computes arithmetic and comparisons but reaches no names, attributes or imports (${arithmetic}); other Python now raises an error instead of running.`,
        };
      }
      return refuse(
        `eval() computes arithmetic here (${arithmetic}), which ast.literal_eval rejects, so that fix would remove the feature; ` +
          'evaluate it with a safe arithmetic evaluator (simpleeval, or an ast walk that allows numbers and operators only) instead',
      );
    }
    return {
      edits: [replace(fieldOf(call, 'function')!, 'ast.literal_eval'), ...pythonImport(root!, text, 'import ast', 'ast')],
      note: 'Evaluated the text with ast.literal_eval, which accepts literals only; expressions now raise ValueError.',
    };
  },
};

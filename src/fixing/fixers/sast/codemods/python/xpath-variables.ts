import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { isLiteral, normalizeParts, type Part } from '../built-string.ts';
import { refuse, type Codemod, type CodemodEdit } from '../codemod.ts';
import { appendArguments, argumentsOf, functionAround, pythonImportsModule, replace, statementOf } from '../edit-kit.ts';
import { builtValue, moduleConstant, namesRead, pythonString, quoteStyle, reboundBetween, variableNameFor } from './strings.ts';

// An XPath query built from strings → the same query with an XPath variable (`$name`) where each value
// was quoted, and the value passed as a keyword argument, which lxml (and parsel/Scrapy selectors) bind
// as a string: `.xpath("//user[name='%s']" % n)` → `.xpath("//user[name=$n]", n=n)`. A value inside a
// longer quoted string becomes `concat('…', $n, '…')`. The same nodes are selected for every value that
// holds no quote; a quote in the value can no longer end the string and add a predicate.

/** Keyword arguments lxml's xpath() takes for itself, which a variable must not be named. */
const RESERVED = new Set(['namespaces', 'extensions', 'smart_strings', 'regexp', '_path', 'query']);

/** The query with variables, or why a value cannot become one. */
function withVariables(parts: Part[], taken: Set<string>): { query: string; variables: { name: string; expr: string }[] } | { refuse: string } {
  const variables: { name: string; expr: string }[] = [];
  const variableFor = (expr: string) => {
    const existing = variables.find((v) => v.expr === expr);
    if (existing) return existing.name;
    const name = variableNameFor(expr, taken, variables.length, RESERVED);
    variables.push({ name, expr: /^(int|float)\(/.test(expr) ? `str(${expr})` : expr });
    return name;
  };
  let query = '';
  let quote: string | null = null;
  let quoted: Part[] = [];
  for (const part of parts) {
    if (!isLiteral(part)) {
      if (!quote) return { refuse: 'a value is XPath code there (outside a quoted string), which no variable can stand for' };
      quoted.push(part);
      continue;
    }
    for (const c of part.literal) {
      if (quote) {
        if (c !== quote) {
          quoted.push({ literal: c });
          continue;
        }
        const pieces = normalizeParts(quoted);
        if (pieces.every(isLiteral)) query += `${quote}${pieces.map((p) => (p as { literal: string }).literal).join('')}${quote}`;
        else {
          const items = pieces.map((p) => (isLiteral(p) ? `${quote}${p.literal}${quote}` : `$${variableFor(p.expr)}`));
          query += items.length === 1 ? items[0] : `concat(${items.join(', ')})`;
        }
        quote = null;
        quoted = [];
      } else if (c === "'" || c === '"') quote = c;
      else query += c;
    }
  }
  if (quote) return { refuse: 'the query has an unbalanced quote' };
  if (!variables.length) return { refuse: 'the query is not built from values' };
  return { query, variables };
}

export const pythonXpathVariables: Codemod = {
  name: 'python/xpath-variables',
  rules: ['python.lang.xpath-injection.query'],
  rewrite({ node, root, text }) {
    const call = node!;
    if (kindOf(call) !== 'call') return refuse('the query is not passed to a call this codemod reads');
    const fn = fieldOf(call, 'function');
    const method = fn && kindOf(fn) === 'attribute' ? fieldOf(fn, 'attribute')?.text() : undefined;
    if (method !== 'xpath') return refuse(`${method ?? 'this call'}() takes an ElementPath, which has no variables; check the value against an allow-list of names`);
    if (!['lxml', 'parsel', 'scrapy'].some((m) => pythonImportsModule(root!, m))) return refuse('the file does not use lxml, parsel or Scrapy, whose xpath() binds variables');
    const args = argumentsOf(call);
    const query = args[0];
    if (!query || kindOf(query) === 'keyword_argument') return refuse('the query is not the first argument');
    if (args.some((a) => kindOf(a) === 'dictionary_splat' || (a !== query && kindOf(a) !== 'keyword_argument'))) return refuse('the call passes its variables in a form this codemod cannot extend');
    const taken = new Set(args.filter((a) => kindOf(a) === 'keyword_argument').map((a) => fieldOf(a, 'name')!.text()));

    const built = builtValue(query, call, (name) => moduleConstant(root!, name));
    if ('reassigned' in built) return refuse(`${query.text()} is assigned more than once or used elsewhere, so the query cannot be rebuilt safely`);
    const { parts, target, origin } = built;
    if (!parts) return refuse('the query is not built in a way this codemod reads (concatenation, % or format() of a literal, an f-string)');
    const rewritten = withVariables(parts, taken);
    if ('refuse' in rewritten) return refuse(rewritten.refuse);
    if (origin) {
      const scope = functionAround(call);
      if (rewritten.variables.some((v) => /\(/.test(v.expr.replace(/^(?:str\()?(?:int|float)\(/, '')))) return refuse('a value is computed by a call, which would run at the query instead');
      if (scope && reboundBetween(scope, origin.statement.range().end.index, statementOf(call).range().start.index, namesRead(rewritten.variables))) {
        return refuse('a value of the query changes between building it and running it');
      }
    }
    const edits: CodemodEdit[] = [
      { ...replace(target, pythonString(rewritten.query, quoteStyle(target))), ...(origin ? { related: origin.statement } : {}) },
      appendArguments(call, rewritten.variables.map((v) => `${v.name}=${v.expr}`), text),
    ];
    return { edits, note: `The XPath query takes its ${rewritten.variables.length} value(s) as variables ($name) passed to xpath(), so a quote in a value cannot change the query.` };
  },
};

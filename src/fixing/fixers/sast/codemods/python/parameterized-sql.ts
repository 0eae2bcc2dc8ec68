import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { parameterize, statementParts, type Parameterized, type PlaceholderStyle } from '../built-string.ts';
import { refuse, type Codemod, type CodemodContext, type CodemodEdit } from '../codemod.ts';
import { declaredBelow, pythonBelow } from '../app-facts.ts';
import { appendArguments, argumentsOf, pythonImport, replace } from '../edit-kit.ts';
import { builtValue, moduleConstant, pythonJoin, pythonString, quoteStyle } from './strings.ts';

// SQL built from strings → the same statement with placeholders and the values passed to the driver,
// which quotes them: DB-API drivers with their own placeholder (sqlite3 `?`; psycopg, PyMySQL,
// mysqlclient, aiopg `%s`), Django's raw() with `%s` and a list, SQLAlchemy text() with `:name` and a dict.
// A plain string given to a SQLAlchemy session, engine or connection's execute() becomes a text() clause
// with its values bound by name (the same call on either side of SQLAlchemy 1.4/2.0). A text() clause
// given to Query.filter()/where()/having() is not a call that takes parameters: its values are bound on
// the clause itself, text(…).bindparams(name=value) (SQLAlchemy 0.9 and later).

const DRIVERS: { pattern: RegExp; style: PlaceholderStyle }[] = [
  { pattern: /^\s*(from|import(\s+[\w.]+\s*,)*)\s+(sqlite3|aiosqlite)\b/m, style: 'qmark' },
  { pattern: /^\s*(from|import(\s+[\w.]+\s*,)*)\s+(psycopg2?|psycopg|pymysql|MySQLdb|mysql\.connector|aiomysql|aiopg)\b/m, style: 'format' },
  { pattern: /^\s*from\s+django\.db\s+import\b/m, style: 'format' },
];
const REQUIREMENT_DRIVERS: { pattern: RegExp; style: PlaceholderStyle }[] = [
  { pattern: /^\s*(psycopg2(-binary)?|psycopg|pymysql|mysqlclient|mysql-connector-python|aiomysql|aiopg)\b/im, style: 'format' },
  { pattern: /^\s*(aiosqlite)\b/im, style: 'qmark' },
];
const DEPENDENCY_FILES = ['requirements.txt', 'requirements/base.txt', 'requirements/prod.txt', 'Pipfile', 'pyproject.toml', 'setup.py'];

async function driverStyle(context: CodemodContext): Promise<PlaceholderStyle | null> {
  const found = new Set(DRIVERS.filter((d) => d.pattern.test(context.text)).map((d) => d.style));
  if (found.size === 1) return [...found][0]!;
  if (found.size > 1) return null;
  for (const file of DEPENDENCY_FILES) {
    const text = await context.readFile(file);
    if (!text) continue;
    const styles = new Set(REQUIREMENT_DRIVERS.filter((d) => d.pattern.test(text)).map((d) => d.style));
    if (styles.size === 1) return [...styles][0]!;
  }
  return null;
}

function paramsText(parameterized: Parameterized, shape: 'tuple' | 'list' | 'dict', like: string, fStrings: boolean): string {
  const values = parameterized.params.map((p) => pythonJoin(p.pieces, like, { fStrings }));
  if (shape === 'dict') return `{${parameterized.params.map((p, i) => `${pythonString(p.name, like)}: ${values[i]}`).join(', ')}}`;
  if (shape === 'list') return `[${values.join(', ')}]`;
  return values.length === 1 ? `(${values[0]},)` : `(${values.join(', ')})`;
}

/** Names a values expression reads, to check none of them changes between building the query and running it. */
function namesIn(parameterized: Parameterized): string[] {
  const names = new Set<string>();
  for (const p of parameterized.params) for (const piece of p.pieces) if ('expr' in piece) for (const m of piece.expr.matchAll(/\b[A-Za-z_]\w*\b/g)) names.add(m[0]);
  for (const kept of parameterized.names) for (const m of kept.matchAll(/\b[A-Za-z_]\w*\b/g)) names.add(m[0]);
  return [...names];
}

function reassignedBetween(scopeStart: SgNode, from: number, to: number, names: string[]): boolean {
  return scopeStart.findAll({ rule: { any: [{ kind: 'assignment' }, { kind: 'augmented_assignment' }, { kind: 'for_statement' }] } as never }).some((a) => {
    const start = a.range().start.index;
    const left = fieldOf(a, 'left')?.text() ?? '';
    return start > from && start < to && names.some((n) => new RegExp(`\\b${n}\\b`).test(left));
  });
}

/** A clause-building method of a query, which takes no parameters of its own. */
const CLAUSE_METHOD = /\.(filter|where|having|order_by|group_by)$/;
/** An execute() of SQLAlchemy: a session's, an engine's or a connection's. */
const SQLALCHEMY_EXECUTE = /(^|\.)(session|engine|conn|connection|db|bind)\.execute$/i;

function usesSqlAlchemy(text: string): boolean {
  return /^\s*(from|import)\s+(sqlalchemy|flask_sqlalchemy)\b/m.test(text);
}

export const pythonParameterizedSql: Codemod = {
  name: 'python/parameterized-sql',
  rules: ['python.lang.sqli.string-built-query'],
  async rewrite(context) {
    const sink = context.node!;
    const callee = fieldOf(sink, 'function')?.text() ?? '';
    if (/\.executescript$/.test(callee)) return refuse('executescript() takes no parameters; run the statements one by one with execute() and parameters');
    if (/\.extra$/.test(callee)) return refuse("QuerySet.extra() needs its where clauses rewritten with params=; use filter() or raw() with params");
    const isTextCall = (node: SgNode | undefined) => !!node && kindOf(node) === 'call' && /^(sqlalchemy\.)?text$/.test(fieldOf(node, 'function')?.text() ?? '');
    const textCall = isTextCall(sink) ? sink : isTextCall(argumentsOf(sink)[0]) ? argumentsOf(sink)[0]! : null;
    const isText = textCall !== null;
    const runner = textCall === sink ? sink.parent()?.parent() : sink;
    if (!runner || kindOf(runner) !== 'call') return refuse('the text() clause is not passed straight to execute(), so there is nowhere to bind its values');
    const query = argumentsOf(textCall ?? sink)[0];
    if (!query || kindOf(query) === 'keyword_argument') return refuse('the statement is not the first argument');
    const runnerCallee = fieldOf(runner, 'function')?.text() ?? '';
    const clause = isText && CLAUSE_METHOD.test(runnerCallee);
    if (clause) {
      const old = await declaredBelow(context, 'SQLAlchemy', '0.9');
      if (old) return refuse(`the repository declares SQLAlchemy${old}, whose text() clauses have no bindparams() (added in 0.9) to bind the values on`);
      if (argumentsOf(textCall!).length > 1) return refuse('the text() clause already takes more arguments; bind the values by hand');
    } else if (argumentsOf(runner).length > 1) return refuse('the call already passes parameters; the statement must be merged with them by hand');
    // A plain string run by SQLAlchemy: becomes a text() clause with named parameters.
    const wrapInText = !isText && !/\.raw$/.test(callee) && usesSqlAlchemy(context.text) && SQLALCHEMY_EXECUTE.test(callee);
    if (!isText && !wrapInText && CLAUSE_METHOD.test(callee) && usesSqlAlchemy(context.text)) {
      return refuse(`${callee.split('.').at(-1)}() is given SQL as a plain string; with SQLAlchemy, build the condition from columns (filter_by(name=value), Model.column == value) instead`);
    }

    let style: PlaceholderStyle | null = isText || wrapInText ? 'named' : /\.raw$/.test(callee) ? 'format' : await driverStyle(context);
    if (!style) {
      return refuse(
        usesSqlAlchemy(context.text)
          ? `${callee}() is not a SQLAlchemy execute() this codemod knows (session, engine or connection), so how it takes parameters cannot be told`
          : 'the database driver (and so its placeholder style) cannot be told from the file or the requirements',
      );
    }
    const constant = (name: string) => (context.root ? moduleConstant(context.root, name) : null);

    const built = builtValue(query, runner, constant);
    if ('reassigned' in built) return refuse(`${query.text()} is assigned more than once or used elsewhere, so the statement cannot be rebuilt safely`);
    const { parts, target } = built;
    const related = built.origin?.statement;
    if (!parts) return refuse('the statement is not built in a way this codemod reads (concatenation, % or format() of a literal, an f-string)');
    const parameterized = parameterize(parts, style, { keepNames: true });
    if ('refuse' in parameterized) return refuse(parameterized.refuse);
    if (related && reassignedBetween(related.parent()!, related.range().end.index, runner.range().start.index, namesIn(parameterized))) {
      return refuse('a value of the statement changes between building it and running it');
    }
    const like = quoteStyle(target);
    const fStrings = !(await pythonBelow(context, context.text, '3.6'));
    const shape = style === 'named' ? 'dict' : /\.raw$/.test(callee) ? 'list' : 'tuple';
    const statement = parameterized.names.length ? pythonJoin(statementParts(parameterized), like, { fStrings }) : pythonString(parameterized.sql, like);
    const edits: CodemodEdit[] = [{ ...replace(target, wrapInText && !related ? `text(${statement})` : statement), ...(related ? { related } : {}) }];
    if (clause) {
      const values = parameterized.params.map((p) => `${p.name}=${pythonJoin(p.pieces, like, { fStrings })}`);
      if (parameterized.params.some((p) => !/^[A-Za-z_]\w*$/.test(p.name))) return refuse('a parameter name is not a Python identifier, so it cannot be bound with bindparams()');
      const end = textCall!.range().end.index;
      edits.push({ start: end, end, text: `.bindparams(${values.join(', ')})` });
    } else {
      if (wrapInText && related) edits.push(replace(query, `text(${query.text()})`));
      edits.push(appendArguments(runner, [paramsText(parameterized, shape, like, fStrings)], context.text));
    }
    if (wrapInText) edits.push(...pythonImport(context.root!, context.text, 'from sqlalchemy import text', 'text'));
    const how = clause ? 'values bound on the text() clause with bindparams()' : wrapInText ? 'bound :name parameters of a text() clause' : style === 'named' ? 'bound :name parameters' : style === 'qmark' ? '? placeholders' : '%s placeholders';
    const kept = parameterized.names.length ? ` Kept in the text as table or column names: ${parameterized.names.join(', ')}.` : '';
    return { edits, note: `Passed the statement's ${parameterized.params.length} value(s) as ${how} instead of formatting them into the SQL.${kept}` };
  },
};

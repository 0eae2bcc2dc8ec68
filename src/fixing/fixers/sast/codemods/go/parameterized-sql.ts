import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { builtStatement, parameterize, type PlaceholderStyle } from '../built-string.ts';
import { refuse, type Codemod, type CodemodContext, type CodemodEdit } from '../codemod.ts';
import { argumentsOf, functionAround, replace } from '../edit-kit.ts';
import { dropImportLeftUnused } from './imports.ts';
import { builtParts, goJoin, goString } from './strings.ts';

// SQL built with + or fmt.Sprintf → placeholders, with the values passed to the same call for the driver
// to bind: lib/pq and pgx `$1, $2`, go-sql-driver/mysql and the SQLite drivers `?` (gorm's Raw: `?`).
// The driver is read from the file's imports, else from go.mod.

const DRIVERS: { pattern: RegExp; style: PlaceholderStyle }[] = [
  { pattern: /"github\.com\/(lib\/pq|jackc\/pgx[^"]*)"/, style: 'numeric' },
  { pattern: /"(github\.com\/(go-sql-driver\/mysql|mattn\/go-sqlite3)|modernc\.org\/sqlite)"/, style: 'qmark' },
];
const MODULE_DRIVERS: { pattern: RegExp; style: PlaceholderStyle }[] = [
  { pattern: /github\.com\/(lib\/pq|jackc\/pgx)/, style: 'numeric' },
  { pattern: /github\.com\/(go-sql-driver\/mysql|mattn\/go-sqlite3)|modernc\.org\/sqlite/, style: 'qmark' },
];

/** Where each method takes its statement: after a context, or after the destination of sqlx's Select and Get. */
const STATEMENT_AT: Record<string, number> = {
  Query: 0, QueryRow: 0, Exec: 0, Queryx: 0, QueryRowx: 0, MustExec: 0, Raw: 0,
  QueryContext: 1, QueryRowContext: 1, ExecContext: 1, Select: 1, Get: 1,
};

async function driverStyle(context: CodemodContext, method: string): Promise<PlaceholderStyle | null> {
  if (method === 'Raw') return 'qmark';
  const styles = (text: string | null, drivers: typeof DRIVERS) => new Set(drivers.filter((d) => text && d.pattern.test(text)).map((d) => d.style));
  const inFile = styles(context.text, DRIVERS);
  const found = inFile.size ? inFile : styles(await context.readFile('go.mod'), MODULE_DRIVERS);
  return found.size === 1 ? [...found][0]! : null;
}

/** The one declaration that gave a variable its value in the same function, when nothing else uses it. */
function soleDeclaration(variable: SgNode, use: SgNode): { declaration: SgNode; value: SgNode } | null {
  const scope = functionAround(use);
  if (!scope) return null;
  const name = variable.text();
  const mentions = scope.findAll({ rule: { kind: 'identifier', regex: `^${name}$` } } as never);
  if (mentions.length !== 2) return null;
  const list = mentions[0]!.parent();
  const declaration = list && kindOf(list) === 'expression_list' ? list.parent() : list;
  if (!declaration || !/^(short_var_declaration|var_spec)$/.test(kindOf(declaration))) return null;
  const values = fieldOf(declaration, kindOf(declaration) === 'var_spec' ? 'value' : 'right');
  const named = values ? values.children().filter((c) => c.isNamed()) : [];
  return named.length === 1 ? { declaration, value: named[0]! } : null;
}

export const goParameterizedSql: Codemod = {
  name: 'go/parameterized-sql',
  rules: ['go.database-sql.sqli.string-built-query'],
  async rewrite(context) {
    const call = context.node!;
    const method = fieldOf(fieldOf(call, 'function')!, 'field')?.text() ?? '';
    const at = STATEMENT_AT[method];
    if (at === undefined) return refuse(`${method} prepares a statement whose values are bound later; pass them where it is executed`);
    const args = argumentsOf(call);
    const query = args[at];
    if (!query) return refuse('the call has no statement');
    if (args.length > at + 1) return refuse('the call already passes values; merge them into the placeholders by hand');
    const style = await driverStyle(context, method);
    if (!style) return refuse('the database driver (and so its placeholder style) cannot be told from the imports or go.mod');

    const built = builtStatement(query, (node) => builtParts(node), () => soleDeclaration(query, call), '+ or fmt.Sprintf with %s, %d, %v');
    if (typeof built === 'string') return refuse(built);
    const { target, related } = built;
    const parameterized = parameterize(built.parts, style);
    if ('refuse' in parameterized) return refuse(parameterized.refuse);
    const end = query.range().end.index;
    const builtWithSprintf = target.text().includes('fmt.Sprintf(');
    const values = parameterized.params.map((p) => goJoin(p.pieces, builtWithSprintf));
    const edits: CodemodEdit[] = [
      { ...replace(target, goString(parameterized.sql)), ...(related ? { related } : {}) },
      { start: end, end, text: `, ${values.join(', ')}` },
      ...(builtWithSprintf ? dropImportLeftUnused(context.root!, context.text, 'fmt', target, values) : []),
    ];
    return { edits, note: `Passed the statement's ${parameterized.params.length} value(s) as ${style === 'numeric' ? '$n' : '?'} parameters instead of building them into the SQL.` };
  },
};

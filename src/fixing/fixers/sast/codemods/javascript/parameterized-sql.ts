import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { builtStatement, parameterize, type PlaceholderStyle } from '../built-string.ts';
import { refuse, type Codemod, type CodemodContext, type CodemodEdit } from '../codemod.ts';
import { argumentsOf, replace } from '../edit-kit.ts';
import { builtParts, jsJoin, jsString, soleDeclaration } from './strings.ts';

// SQL built from strings → placeholders and a values array the driver binds: node-postgres `$1, $2`,
// mysql / mysql2 / sqlite3 / better-sqlite3 `?`. The driver is read from the file's imports, else from
// package.json.

const DRIVERS: { pattern: RegExp; style: PlaceholderStyle }[] = [
  { pattern: /(require\(|from\s+)['"](pg|pg-pool)['"]/, style: 'numeric' },
  { pattern: /(require\(|from\s+)['"](mysql2?(\/promise)?|sqlite3|better-sqlite3|sqlite)['"]/, style: 'qmark' },
];
const PACKAGE_DRIVERS: { pattern: RegExp; style: PlaceholderStyle }[] = [
  { pattern: /"(pg)"\s*:/, style: 'numeric' },
  { pattern: /"(mysql2?|sqlite3|better-sqlite3)"\s*:/, style: 'qmark' },
];

async function driverStyle(context: CodemodContext): Promise<PlaceholderStyle | null> {
  const inFile = new Set(DRIVERS.filter((d) => d.pattern.test(context.text)).map((d) => d.style));
  if (inFile.size) return inFile.size === 1 ? [...inFile][0]! : null;
  const manifest = await context.readFile('package.json');
  const inPackage = new Set(PACKAGE_DRIVERS.filter((d) => manifest && d.pattern.test(manifest)).map((d) => d.style));
  return inPackage.size === 1 ? [...inPackage][0]! : null;
}

export const javascriptParameterizedSql: Codemod = {
  name: 'javascript/parameterized-sql',
  rules: ['javascript.lang.sqli.string-built-query'],
  async rewrite(context) {
    const match = context.node!;
    const call = kindOf(match) === 'call_expression' ? match : match.parent()?.parent();
    if (!call || kindOf(call) !== 'call_expression') return refuse('the statement is not passed straight to a query call');
    const fn = fieldOf(call, 'function')?.text() ?? '';
    if (!/\.(query|execute|all|get|run|each)$/.test(fn)) return refuse(`${fn}() is not a driver call whose parameters this codemod knows`);
    const args = argumentsOf(call);
    const query = args[0];
    if (!query) return refuse('the call has no statement');
    if (args[1] && !/^(arrow_function|function_expression|function)$/.test(kindOf(args[1]))) return refuse('the call already passes parameters or options; merge them by hand');
    const style = await driverStyle(context);
    if (!style) return refuse('the database driver (and so its placeholder style) cannot be told from the file or package.json');

    const built = builtStatement(query, builtParts, () => soleDeclaration(query, call), 'concatenation or a template literal');
    if (typeof built === 'string') return refuse(built);
    const { target, related } = built;
    const parameterized = parameterize(built.parts, style);
    if ('refuse' in parameterized) return refuse(parameterized.refuse);
    const firstString = kindOf(target) === 'string' ? target : target.find({ rule: { kind: 'string' } as never });
    const like = firstString?.text()[0] === "'" ? "'" : '"';
    const values = `[${parameterized.params.map((p) => jsJoin(p.pieces, like)).join(', ')}]`;
    const at = query.range().end.index;
    const edits: CodemodEdit[] = [{ ...replace(target, jsString(parameterized.sql, like)), ...(related ? { related } : {}) }, { start: at, end: at, text: `, ${values}` }];
    return { edits, note: `Passed the statement's ${parameterized.params.length} value(s) as ${style === 'numeric' ? '$n' : '?'} parameters instead of building them into the SQL.` };
  },
};

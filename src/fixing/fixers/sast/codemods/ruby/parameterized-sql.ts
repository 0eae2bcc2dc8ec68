import { fieldOf } from '../../../shared/syntax.ts';
import { parameterize } from '../built-string.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, replace } from '../edit-kit.ts';
import { builtParts, rubyString, rubyValue } from './strings.ts';

// ActiveRecord SQL fragments built with interpolation or + → `?` placeholders and the values passed
// beside them, which Active Record quotes for the database: where/not/rewhere/having/find_by take them
// as further arguments, find_by_sql/count_by_sql as an array. Methods that take no values (order,
// group, select, joins, pluck, the connection's execute) are refused: a value there is a name.

const BINDS_AS_ARGUMENTS = /^(where|not|rewhere|having|find_by|exists\?)$/;
const BINDS_AS_ARRAY = /^(find_by_sql|count_by_sql)$/;
export const rubyParameterizedSql: Codemod = {
  name: 'ruby/parameterized-sql',
  rules: ['ruby.rails.sqli.string-built-query'],
  rewrite({ node }) {
    const call = node!;
    const method = fieldOf(call, 'method')?.text() ?? '';
    const asArray = BINDS_AS_ARRAY.test(method);
    if (!asArray && !BINDS_AS_ARGUMENTS.test(method)) return refuse(`${method} takes no bound values; a value there is a name: check it against an allow-list of names`);
    const args = argumentsOf(call);
    if (args.length !== 1) return refuse(`${method} already gets more than the fragment; merge the values into placeholders by hand`);
    const fragment = args[0]!;
    const parts = builtParts(fragment);
    if (!parts) return refuse('the fragment is not built in a way this codemod reads (interpolation or +)');
    const parameterized = parameterize(parts, 'qmark');
    if ('refuse' in parameterized) return refuse(parameterized.refuse);
    const items = [rubyString(parameterized.sql), ...parameterized.params.map((p) => rubyValue(p.pieces))];
    return {
      edits: [replace(fragment, asArray ? `[${items.join(', ')}]` : items.join(', '))],
      note: `Passed the fragment's ${parameterized.params.length} value(s) as ? placeholders, which Active Record quotes, instead of building them into the SQL.`,
    };
  },
};

import semver from 'semver';

/** What becomes of a declared range when a package must reach `fixed`. */
export type RangeChange = { range: string } | { unchanged: true } | { refused: string };

/** An alias, `npm:<real name>@<range>`. */
const ALIAS = /^npm:((?:@[^/@]+\/)?[^@]+)@(.*)$/;

/** Whether a declared range (an alias's included) admits a version. */
export function npmRangeAdmits(range: string, version: string): boolean {
  const inner = ALIAS.exec(range.trim())?.[2] ?? range;
  return semver.validRange(inner) !== null && semver.satisfies(version, inner);
}

/** `^1.2.3`, `~1.2.3`, `>=1.2.3`, `=1.2.3`, `v1.2.3`, `1.2.3`, optionally followed by an upper bound (`<2.0.0`). */
const SIMPLE = /^(\^|~|>=|=|v)?\s*(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)(\s+<=?\s*\S+)?$/;

/**
 * Raises a package.json range so its lowest version is `fixed`, keeping its style: `^4.17.20` → `^4.17.21`,
 * `~1.2.3` → `~1.2.4`, `1.2.3` → `1.2.4`, `>=1.0.0 <2.0.0` → `>=1.0.5 <2.0.0`. A range whose lowest version
 * is already `fixed` or later stays; one that is not plain (a tag, URL, alias or `||` list) stays when it
 * already admits `fixed` and is refused when it does not.
 */
export function raiseNpmRange(range: string, fixed: string): RangeChange {
  const trimmed = range.trim();
  const alias = ALIAS.exec(trimmed);
  if (alias) {
    const inner = raiseNpmRange(alias[2], fixed);
    return 'range' in inner ? { range: `npm:${alias[1]}@${inner.range}` } : inner;
  }
  const simple = SIMPLE.exec(trimmed);
  if (simple) {
    const [, operator = '', base, upper = ''] = simple;
    if (semver.gte(base, fixed)) return { unchanged: true };
    const raised = `${operator === 'v' ? '' : operator}${fixed}${upper}`;
    if (!semver.satisfies(fixed, raised)) return { refused: `its range ${trimmed} has an upper bound below ${fixed}` };
    return { range: raised };
  }
  if (semver.validRange(trimmed) && semver.satisfies(fixed, trimmed)) return { unchanged: true };
  return { refused: `its range ${trimmed} is not one the fixer can raise to ${fixed}` };
}

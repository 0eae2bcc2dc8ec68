import pep440 from '@renovatebot/pep440';
import type { RangeChange } from './npm-range.ts';

// Raising Python version constraints so they admit a fixed version, each clause keeping its operator:
// PEP 440 specifiers (`==1.0` → `==1.0.3`, `>=1.0,<2` → `>=1.0.3,<2`) and Poetry's (`^1.0` → `^1.0.3`).

const CLAUSE = /^(\s*)(===|==|~=|!=|<=|>=|<|>)(\s*)([^\s,]+)(\s*)$/;

const below = (version: string, fixed: string) => pep440.valid(version) !== null && pep440.lt(version, fixed);

/** A PEP 440 specifier set (what follows the name in a requirement); an empty one admits everything. */
export function raisePep440Specifier(specifier: string, fixed: string): RangeChange {
  if (specifier.trim() === '') return { unchanged: true };
  const clauses = specifier.split(',');
  const raised: string[] = [];
  for (const clause of clauses) {
    const parts = CLAUSE.exec(clause);
    if (!parts) return { refused: `its constraint ${specifier.trim()} is not one the fixer can read` };
    const [, lead, operator, gap, version, trail] = parts;
    raised.push(raiseClause(operator, version, fixed, (op, v) => `${lead}${op}${gap}${v}${trail}`));
  }
  const result = raised.join(',');
  if (!pep440.satisfies(fixed, result)) return { refused: `its constraint ${specifier.trim()} excludes ${fixed}` };
  return result === specifier ? { unchanged: true } : { range: result };
}

function raiseClause(operator: string, version: string, fixed: string, write: (operator: string, version: string) => string): string {
  if (version.includes('*')) return write(operator, version);
  switch (operator) {
    case '==':
    case '===':
    case '>=':
      return below(version, fixed) ? write(operator, fixed) : write(operator, version);
    case '>':
      return below(version, fixed) ? write('>=', fixed) : write(operator, version);
    case '~=': {
      if (!below(version, fixed)) return write(operator, version);
      // `~=1.4` admits 1.x; `~=1.4.5` would narrow that to 1.4.x, so the floor is added beside it instead.
      const sameLength = pep440.explain(version)!.release.length >= pep440.explain(fixed)!.release.length;
      return sameLength ? write(operator, fixed) : `${write(operator, version)},>=${fixed}`;
    }
    default:
      return write(operator, version);
  }
}

/**
 * A Poetry constraint: `^`, `~`, a bare exact version, `*`, wildcards, `||` alternatives, or PEP 440 clauses
 * separated by commas (or spaces).
 */
export function raisePoetryConstraint(constraint: string, fixed: string): RangeChange {
  const trimmed = constraint.trim();
  if (trimmed === '*' || trimmed === '') return { unchanged: true };
  if (trimmed.includes('||')) {
    const admits = trimmed.split('||').some((alternative) => admitsPoetry(alternative.trim(), fixed));
    return admits ? { unchanged: true } : { refused: `its constraint ${trimmed} is not one the fixer can raise to ${fixed}` };
  }
  const caretOrTilde = /^(\^|~(?!=))\s*(\S+)$/.exec(trimmed);
  if (caretOrTilde) {
    const [, operator, version] = caretOrTilde;
    if (pep440.valid(version) === null) return { refused: `its constraint ${trimmed} is not one the fixer can read` };
    return below(version, fixed) ? { range: constraint.replace(trimmed, `${operator}${fixed}`) } : { unchanged: true };
  }
  if (pep440.valid(trimmed) !== null) {
    return below(trimmed, fixed) ? { range: constraint.replace(trimmed, fixed) } : { unchanged: true };
  }
  if (/^[\d.]+\.\*$/.test(trimmed)) {
    return pep440.satisfies(fixed, `==${trimmed}`) ? { unchanged: true } : { refused: `its constraint ${trimmed} excludes ${fixed}` };
  }
  // Poetry also separates clauses with spaces: `>=1.0 <2.0`.
  const commaSeparated = trimmed.includes(',') ? trimmed : trimmed.replace(/\s+(?=[<>=!~])/g, ',');
  const change = raisePep440Specifier(commaSeparated, fixed);
  if (!('range' in change)) return change;
  return { range: constraint.replace(trimmed, commaSeparated === trimmed ? change.range : change.range.replace(/,/g, ' ')) };
}

function admitsPoetry(constraint: string, fixed: string): boolean {
  const caret = /^\^(\S+)$/.exec(constraint);
  if (caret) return pep440.gte(fixed, caret[1]) && pep440.lt(fixed, caretUpper(caret[1]));
  const tilde = /^~(?!=)(\S+)$/.exec(constraint);
  if (tilde) return pep440.gte(fixed, tilde[1]) && pep440.lt(fixed, tildeUpper(tilde[1]));
  if (pep440.valid(constraint) !== null) return pep440.eq(fixed, constraint);
  try {
    return pep440.satisfies(fixed, constraint.replace(/\s+(?=[<>=!~])/g, ','));
  } catch {
    return false;
  }
}

/** `^1.2.3` → `<2.0.0`, `^0.2.3` → `<0.3.0`, `^0.0.3` → `<0.0.4`, as Poetry reads a caret. */
function caretUpper(version: string): string {
  const release = pep440.explain(version)!.release;
  const first = release.findIndex((n) => n !== 0);
  const index = first === -1 ? release.length - 1 : first;
  return [...release.slice(0, index), release[index] + 1].join('.');
}

/** `~1.2.3` → `<1.3.0`, `~1` → `<2`, as Poetry reads a tilde. */
function tildeUpper(version: string): string {
  const release = pep440.explain(version)!.release;
  const index = release.length === 1 ? 0 : 1;
  return [...release.slice(0, index), release[index] + 1].join('.');
}

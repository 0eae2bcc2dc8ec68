import { parse as parseToml } from 'smol-toml';
import { normalizePythonName, requirementName } from '../../../inventory/extractors/python/python-names.ts';
import { refused, type BumpResult, type DependencyBump } from './dependency-bump.ts';
import type { RangeChange } from './npm-range.ts';
import { raisePep440Specifier, raisePoetryConstraint } from './pep440-constraint.ts';
import { applyEdits, type TextEdit } from '../shared/text-edits.ts';
import { scanTomlAssignments, type TomlAssignment, type TomlString } from './toml-scan.ts';

// pyproject.toml declares a dependency as a PEP 508 string (PEP 621 `[project]`, PEP 735 groups, uv's
// and PDM's extra lists) or as a Poetry `name = constraint` entry. Each declaration of the package has
// its constraint raised in the text itself, so comments and layout stay.

export type PyprojectChange = { text: string; changed: boolean } | { refused: string };

/** Tables (and, for `project`, the key) whose arrays hold PEP 508 requirement strings. */
function holdsRequirements(assignment: TomlAssignment): boolean {
  const { table, key } = assignment;
  if (table === 'project') return key === 'dependencies' || key.startsWith('optional-dependencies.');
  if (table === 'project.optional-dependencies' || table === 'dependency-groups' || table === 'tool.pdm.dev-dependencies') return true;
  if (table === 'tool.uv') return ['dev-dependencies', 'constraint-dependencies', 'override-dependencies'].includes(key);
  return false;
}

const POETRY_TABLE = /^tool\.poetry\.(?:dependencies|dev-dependencies|group\.[^.]+\.dependencies)$/;
/** `[tool.poetry.dependencies.requests]` with `version = "…"` inside. */
const POETRY_SUBTABLE = /^(tool\.poetry\.(?:dependencies|dev-dependencies|group\.[^.]+\.dependencies))\.(.+)$/;

export function raiseInPyproject(text: string, name: string, fixed: string): PyprojectChange {
  try {
    parseToml(text);
  } catch {
    return { refused: 'pyproject.toml is not valid TOML' };
  }
  const wanted = normalizePythonName(name);
  const edits: TextEdit[] = [];
  for (const assignment of scanTomlAssignments(text)) {
    for (const declaration of declarationsIn(assignment, wanted)) {
      if (!declaration.string.plain) return { refused: `pyproject.toml declares ${name} in a string the fixer does not rewrite` };
      const change = declaration.raise(fixed);
      if ('refused' in change) return { refused: `pyproject.toml declares ${name} and ${change.refused}` };
      if ('range' in change) edits.push({ start: declaration.string.start + 1, end: declaration.string.end - 1, text: change.range });
    }
  }
  return { text: applyEdits(text, edits), changed: edits.length > 0 };
}

interface Declaration {
  string: TomlString;
  raise(fixed: string): RangeChange;
}

function declarationsIn(assignment: TomlAssignment, wanted: string): Declaration[] {
  if (holdsRequirements(assignment)) {
    return assignment.strings
      .filter((s) => s.innerKey === null && normalizePythonName(requirementName(s.content) ?? '') === wanted)
      .map((string) => ({ string, raise: (fixed) => raiseRequirement(string.content, fixed) }));
  }
  const subtable = POETRY_SUBTABLE.exec(assignment.table);
  if (subtable && normalizePythonName(subtable[2]) === wanted && assignment.key === 'version') {
    return assignment.strings.slice(0, 1).map((string) => ({ string, raise: (fixed) => raisePoetryConstraint(string.content, fixed) }));
  }
  if (POETRY_TABLE.test(assignment.table) && normalizePythonName(assignment.key) === wanted) {
    // `name = "^1.0"`, `name = { version = "^1.0", … }`, or a list of those per Python version.
    const isString = assignment.strings[0]?.start === assignment.valueStart;
    return assignment.strings
      .filter((s) => s.innerKey === 'version' || (isString && s.start === assignment.valueStart))
      .map((string) => ({ string, raise: (fixed) => raisePoetryConstraint(string.content, fixed) }));
  }
  return [];
}

/** `name[extras] specifier ; marker`: the specifier raised, the rest as written. */
function raiseRequirement(requirement: string, fixed: string): RangeChange {
  const parts = /^(\s*[A-Za-z0-9][A-Za-z0-9._-]*\s*(?:\[[^\]]*\])?\s*)([^;@]*?)(\s*(?:;.*)?)$/s.exec(requirement);
  if (!parts) return { refused: `its requirement ${requirement} is not one the fixer can read` };
  const [, head, specifier, tail] = parts;
  const parenthesized = /^\((.*)\)$/s.exec(specifier.trim());
  const change = raisePep440Specifier(parenthesized ? parenthesized[1] : specifier, fixed);
  if (!('range' in change)) return change;
  return { range: `${head}${parenthesized ? `(${change.range})` : change.range}${tail}` };
}

/** A finding in pyproject.toml itself: its constraint raised, for a locker to resolve again. */
export async function bumpPyproject(bump: DependencyBump, text: string): Promise<BumpResult> {
  const change = raiseInPyproject(text, bump.name, bump.fixed);
  if ('refused' in change) return refused(change.refused);
  if (!change.changed) return { kind: 'already', note: `${bump.file} already admits ${bump.name} ${bump.fixed}; nothing to change` };
  return {
    kind: 'bumped',
    files: new Map([[bump.file, change.text]]),
    note: `Raised the constraint on ${bump.name} in ${bump.file} to admit ${bump.fixed}; lock the project again if it has a lockfile`,
  };
}

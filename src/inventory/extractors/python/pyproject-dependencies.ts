import { component, type Component } from '../../component.ts';
import { normalizePythonName, requirementName } from './python-names.ts';
import { isTable } from './python-project-files.ts';
import type { Table } from './python-project-files.ts';

/** PEP 503 normalized names a project declares itself, split by what they are needed for. */
export interface DeclaredDependencies {
  runtime: Set<string>;
  development: Set<string>;
}

/**
 * The dependencies a pyproject.toml declares, in any of the layouts the Python lockers read: PEP 621
 * `[project]`, PEP 735 `[dependency-groups]`, and Poetry's, PDM's and uv's own tables. Optional
 * dependencies (extras) count as runtime: they ship with the project; every group other than Poetry's
 * `main` counts as development.
 */
export function pyprojectDependencies(pyproject: Table): DeclaredDependencies {
  const declared: DeclaredDependencies = { runtime: new Set(), development: new Set() };
  const project = table(pyproject.project);
  const tool = table(pyproject.tool);
  const poetry = table(tool.poetry);

  addRequirements(declared.runtime, project.dependencies);
  for (const extra of Object.values(table(project['optional-dependencies']))) addRequirements(declared.runtime, extra);
  for (const group of Object.values(table(pyproject['dependency-groups']))) addRequirements(declared.development, group);
  for (const group of Object.values(table(table(tool.pdm)['dev-dependencies']))) addRequirements(declared.development, group);
  addRequirements(declared.development, table(tool.uv)['dev-dependencies']);

  addPoetryNames(declared.runtime, poetry.dependencies);
  addPoetryNames(declared.development, poetry['dev-dependencies']);
  for (const [groupName, group] of Object.entries(table(poetry.group))) {
    addPoetryNames(groupName === 'main' ? declared.runtime : declared.development, table(group).dependencies);
  }
  return declared;
}

/** Names of the project's extras (`[project.optional-dependencies]`), which lockers lock as groups. */
export function optionalDependencyGroups(pyproject: Table): string[] {
  return Object.keys(table(table(pyproject.project)['optional-dependencies']));
}

function table(value: unknown): Table {
  return isTable(value) ? value : {};
}

/** PEP 508 strings; entries that are not (PDM's `-e ./path`, PEP 735 `{include-group = ...}`) name nothing. */
function addRequirements(into: Set<string>, requirements: unknown): void {
  if (!Array.isArray(requirements)) return;
  for (const requirement of requirements) {
    const name = typeof requirement === 'string' ? requirementName(requirement) : null;
    if (name) into.add(normalizePythonName(name));
  }
}

/** Poetry's `name = spec` tables, where `python` is the interpreter constraint, not a package. */
function addPoetryNames(into: Set<string>, dependencies: unknown): void {
  for (const name of Object.keys(table(dependencies))) {
    if (name.toLowerCase() !== 'python') into.add(normalizePythonName(name));
  }
}

/** A locked package as a component: direct when the project declares it, development as the lock or its edges say. */
export function lockedPythonComponent(
  locked: { name: string; version: string; sourceFile: string },
  declared: DeclaredDependencies | null | undefined,
  development: boolean | undefined,
): Component {
  const normalized = normalizePythonName(locked.name);
  return component({
    name: locked.name,
    version: locked.version,
    ecosystem: 'PyPI',
    direct: declared ? declared.runtime.has(normalized) || declared.development.has(normalized) : null,
    ...(development === undefined ? {} : { development }),
    sourceFile: locked.sourceFile,
  });
}

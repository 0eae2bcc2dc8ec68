import type { DeclaredDependencies } from './pyproject-dependencies.ts';

/** Package name → names of the packages it depends on, all PEP 503 normalized. */
export type DependencyEdges = Map<string, Iterable<string>>;

/**
 * For lockfiles that do not mark development packages themselves: a package is development-only when
 * the development roots pull it in and the runtime roots do not. Edges include optional ones (extras,
 * platform-specific), so a package is only ever called development-only when no runtime path could
 * need it. Undefined for a package neither side reaches (the lock and its manifest disagree).
 */
export function developmentByReach(edges: DependencyEdges, declared: DeclaredDependencies): (name: string) => boolean | undefined {
  const runtime = closure(edges, declared.runtime);
  const development = closure(edges, declared.development);
  return (name) => (runtime.has(name) ? false : development.has(name) ? true : undefined);
}

function closure(edges: DependencyEdges, roots: Iterable<string>): Set<string> {
  const reached = new Set<string>();
  const pending = [...roots];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (reached.has(name)) continue;
    reached.add(name);
    pending.push(...(edges.get(name) ?? []));
  }
  return reached;
}

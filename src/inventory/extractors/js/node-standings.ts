/** How a project manifest declares a dependency; `unknown` where that manifest could not be read. */
export type DeclarationKind = 'production' | 'development' | 'unknown';

/** A lockfile node that one of the project's own manifests points at. */
export interface ProjectRoot<Node> {
  node: Node;
  kind: DeclarationKind;
}

export interface NodeStanding {
  direct: boolean | null;
  /** Undefined where no path from the project reaches the node, or where the unread manifests might. */
  development: boolean | undefined;
}

/**
 * Where each lockfile node stands relative to the project: direct when a project manifest points at it,
 * development-only when every path from the project to it starts at a devDependency.
 *
 * `complete` says whether the roots cover every manifest of the project. When they do not, a node outside
 * them may still be direct, and one reached only from devDependencies may be a production dependency of a
 * manifest that was not read, so neither is claimed.
 */
export function nodeStandings<Node>(
  roots: Iterable<ProjectRoot<Node>>,
  dependenciesOf: (node: Node) => Iterable<Node>,
  complete: boolean,
): (node: Node) => NodeStanding {
  const rootNodes = new Set<Node>();
  const reachedFrom = new Map<Node, Set<DeclarationKind>>();
  const pending: ProjectRoot<Node>[] = [];
  const visit = (node: Node, kind: DeclarationKind) => {
    const kinds = reachedFrom.get(node) ?? new Set<DeclarationKind>();
    if (kinds.has(kind)) return;
    kinds.add(kind);
    reachedFrom.set(node, kinds);
    pending.push({ node, kind });
  };
  for (const root of roots) {
    rootNodes.add(root.node);
    visit(root.node, root.kind);
  }
  for (let next = pending.pop(); next; next = pending.pop()) {
    for (const dependency of dependenciesOf(next.node)) visit(dependency, next.kind);
  }

  return (node) => {
    const kinds = reachedFrom.get(node);
    const direct = rootNodes.has(node) ? true : complete ? false : null;
    if (kinds?.has('production')) return { direct, development: false };
    const onlyDevelopment = complete && kinds?.has('development') && !kinds.has('unknown');
    return { direct, development: onlyDevelopment ? true : undefined };
  };
}

import { component, type Component } from '../../component.ts';

/** A package as one place in a JavaScript lockfile resolves it, before copies at other places are merged. */
export interface LockedPackage {
  name: string;
  version: string;
  direct: boolean | null;
  /** Left out where the lockfile does not tell. */
  development?: boolean;
}

/**
 * One component per name@version, sorted: a package installed at several places is direct if any copy
 * is, and development-only only if every copy is.
 */
export function lockedPackagesToComponents(packages: Iterable<LockedPackage>, sourceFile: string): Component[] {
  const merged = new Map<string, LockedPackage>();
  for (const pkg of packages) {
    const key = `${pkg.name}@${pkg.version}`;
    const seen = merged.get(key);
    merged.set(key, seen ? mergeCopies(seen, pkg) : pkg);
  }
  return [...merged.values()]
    .sort((a, b) => compareText(a.name, b.name) || compareText(a.version, b.version))
    .map(({ name, version, direct, development }) =>
      component({ name, version, ecosystem: 'npm', direct, ...(development === undefined ? {} : { development }), sourceFile }),
    );
}

function mergeCopies(a: LockedPackage, b: LockedPackage): LockedPackage {
  const direct = a.direct === true || b.direct === true ? true : a.direct === false && b.direct === false ? false : null;
  const development =
    a.development === false || b.development === false ? false : a.development && b.development ? true : undefined;
  return { name: a.name, version: a.version, direct, development };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

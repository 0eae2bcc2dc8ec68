import type { Component } from '../../component.ts';

/** A distribution name at the start of a PEP 508 requirement string. */
const LEADING_NAME = /^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)/;

/** PEP 503 normalized form: the one name under which `Django`, `django` and `DJANGO` are the same project. */
export function normalizePythonName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** The distribution name a PEP 508 requirement string starts with (`requests[socks]>=2; ...` → `requests`), if any. */
export function requirementName(requirement: string): string | null {
  return LEADING_NAME.exec(requirement)?.[1] ?? null;
}

/**
 * Drops repeats of a package version, however its name is spelled, keeping the first: lockfiles list a
 * package once per extra (pdm) or per section (Pipfile.lock), and requirement files may repeat a pin.
 */
export function uniquePythonComponents(components: Component[]): Component[] {
  const seen = new Set<string>();
  return components.filter((c) => {
    const key = `${normalizePythonName(c.name)}@${c.version}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

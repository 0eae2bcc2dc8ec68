// Helpers for the Python extractors' tests: each reads a testdata folder laid out as it would sit in a
// repository, and the result is compared with the complete expected component list.
import assert from 'node:assert/strict';
import type { Component } from '../../component.ts';
import { ExtractError, type Extractor } from '../extractor.ts';

import { treeReader } from '../testing.ts';

export { fixtureTree } from '../testing.ts';

export type Tree = Map<string, string>;

export { treeReader as treeContext };

export async function extract(extractor: Extractor, tree: Tree, filePath: string, context = treeReader(tree)): Promise<Component[]> {
  const text = tree.get(filePath);
  assert.ok(text !== undefined, `no ${filePath} in the tree`);
  return extractor.extract({ path: filePath, text }, context);
}

export interface Summary {
  name: string;
  version: string;
  direct: boolean | null;
  development: boolean | undefined;
  sourceFile: string;
}

export function summarize(components: Component[]): Summary[] {
  const rows = components.map((c) => {
    assert.equal(c.ecosystem, 'PyPI');
    return { name: c.name, version: c.version, direct: c.direct, development: c.development, sourceFile: c.sourceFile };
  });
  return sorted(rows);
}

/** Expected rows for one source file: [name, version, direct, development]. */
export function rows(sourceFile: string, entries: [string, string, boolean | null, boolean | undefined][]): Summary[] {
  return entries.map(([name, version, direct, development]) => ({ name, version, direct, development, sourceFile }));
}

export function sorted(summaries: Summary[]): Summary[] {
  const key = (s: Summary) => `${s.sourceFile}\0${s.name.toLowerCase()}\0${s.version}`;
  return [...summaries].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

export function purlOf(components: Component[], name: string, version?: string): string | undefined {
  return components.find((c) => c.name === name && (version === undefined || c.version === version))?.purl;
}

/** Rows with `direct` replaced, for a lockfile read without its manifest. */
export function withDirect(summaries: Summary[], direct: boolean | null): Summary[] {
  return summaries.map((s) => ({ ...s, direct }));
}

export async function assertRejected(extractor: Extractor, filePath: string, text: string, reason: RegExp): Promise<void> {
  await assert.rejects(
    async () => extractor.extract({ path: filePath, text }, treeReader(new Map([[filePath, text]]))),
    (error: unknown) => {
      assert.ok(error instanceof ExtractError, `expected an ExtractError, got ${String(error)}`);
      assert.match(error.message, new RegExp(`^${filePath.replace(/\./g, '\\.')}: `));
      assert.match(error.message, reason);
      return true;
    },
  );
}

// Helpers for the JavaScript lockfile extractors' tests.
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Component } from '../../component.ts';
import { ExtractError, type Extractor } from '../extractor.ts';
import { fixtureTree, treeReader } from '../testing.ts';

/** name, version, direct, development */
export type Row = [string, string, boolean | null, boolean | undefined];

export { treeReader as contextOf };

/**
 * Extracts `<root>/<lockfile>` from a testdata folder mounted under `root`, so lockfiles sit in a subfolder;
 * without manifests, the context holds the lockfile alone.
 */
export async function extractFixture(
  testdata: string,
  extractor: Extractor,
  fixture: string,
  lockfile: string,
  { root = 'services/web', withManifests = true } = {},
): Promise<Component[]> {
  const tree = fixtureTree(testdata, fixture, root);
  const lockPath = path.posix.join(root, lockfile);
  const text = tree.get(lockPath);
  assert.ok(text !== undefined, `${fixture} has no ${lockfile}`);
  const visible = withManifests ? tree : new Map([[lockPath, text]]);
  return extractor.extract({ path: lockPath, text }, treeReader(visible));
}

export function rows(components: Component[]): Row[] {
  return components.map((c) => [c.name, c.version, c.direct, c.development]);
}

export function find(components: Component[], name: string, version: string): Component {
  const found = components.find((c) => c.name === name && c.version === version);
  assert.ok(found, `${name}@${version} not extracted`);
  return found;
}

export async function assertExtractError(extractor: Extractor, fileName: string, text: string, reason: RegExp) {
  await assert.rejects(
    async () => extractor.extract({ path: `broken/${fileName}`, text }, treeReader(new Map())),
    (error: unknown) => error instanceof ExtractError && error.message.startsWith(`broken/${fileName}: `) && reason.test(error.message),
  );
}

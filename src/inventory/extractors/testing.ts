// Helpers for the extractors' own tests (each format's `<format>.test.ts` beside its code and testdata/).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Component } from '../component.ts';
import { ExtractError, type ExtractContext, type Extractor } from './extractor.ts';

/** A file of a format's testdata folder. */
export function fixture(testdata: string, relativePath: string): string {
  return fs.readFileSync(path.join(testdata, relativePath), 'utf8');
}

/** The files of a testdata folder, keyed by repository path: the folder's own path replaced by `at`. */
export function fixtureTree(testdata: string, folder: string, at: string): Map<string, string> {
  const root = path.join(testdata, folder);
  const tree = new Map<string, string>();
  for (const relative of fs.readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    const full = path.join(root, relative);
    if (fs.statSync(full).isFile()) tree.set(path.posix.join(at, relative.split(path.sep).join('/')), fs.readFileSync(full, 'utf8'));
  }
  return tree;
}

/**
 * A tree held in memory (repository-relative path → file text) that, like the real one, answers null for
 * missing paths and paths outside it, and records what was asked for.
 */
export function treeReader(tree: Map<string, string>): ExtractContext & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    async readFile(requested) {
      reads.push(requested);
      const normalized = path.posix.normalize(requested);
      if (normalized.startsWith('../') || path.posix.isAbsolute(normalized)) return null;
      return tree.get(normalized) ?? null;
    },
  };
}

export function treeContext(files: Record<string, string> = {}): ExtractContext {
  return treeReader(new Map(Object.entries(files)));
}

export type Summary = Pick<Component, 'name' | 'version' | 'direct' | 'development'>;

/** Name, version, direct and (where the format says) development, sorted for exact comparison. */
export function summarize(components: Component[]): Summary[] {
  return components
    .map(({ name, version, direct, development }) => ({ name, version, direct, ...(development === undefined ? {} : { development }) }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

export async function extract(extractor: Extractor, path: string, text: string, context = treeContext()): Promise<Component[]> {
  const components = await extractor.extract({ path, text }, context);
  for (const c of components) {
    assert.equal(c.sourceFile, path, `${c.name}: sourceFile`);
    assert.equal(c.ecosystem, extractor.ecosystem, `${c.name}: ecosystem`);
  }
  return components;
}

export function purlOf(components: Component[], name: string, version: string): string | undefined {
  return components.find((c) => c.name === name && c.version === version)?.purl;
}

export async function assertRejects(extractor: Extractor, path: string, text: string, reason: RegExp): Promise<void> {
  await assert.rejects(
    async () => extractor.extract({ path, text }, treeContext()),
    (error: unknown) => error instanceof ExtractError && error.message.startsWith(`${path}: `) && reason.test(error.message),
  );
}

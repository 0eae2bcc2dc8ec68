import { isFixturePath, loadIgnore, walkTree } from '../scanning/source-files.ts';
import { readTreeText } from '../scm/work-tree.ts';
import type { Component } from './component.ts';
import type { ExtractContext, Extractor } from './extractors/extractor.ts';
import { ExtractError, parserReason } from './extractors/extractor.ts';
import { EXTRACTORS, extractorFor } from './extractors/index.ts';

/** Lockfiles of large monorepos run to tens of megabytes; beyond this a file is not a manifest anyone wrote. */
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

export interface ManifestSummary {
  path: string;
  extractor: string;
  components: number;
}

export interface Inventory {
  components: Component[];
  manifests: ManifestSummary[];
}

export interface InventoryOptions {
  extractors?: readonly Extractor[];
  signal?: AbortSignal;
  /** Largest manifest or lockfile parsed (default MAX_MANIFEST_BYTES); a larger one is skipped with a note. */
  maxManifestBytes?: number;
  /** A manifest that could not be read; the rest of the tree is still inventoried. */
  onNote?: (message: string) => void;
}

/** Every manifest and lockfile in the tree (vendored folders, fixtures and `.bulwarkignore` left out), extracted. */
export async function buildInventory(dir: string, options: InventoryOptions = {}): Promise<Inventory> {
  const extractors = options.extractors ?? EXTRACTORS;
  const ignored = await loadIgnore(dir);
  const maxBytes = options.maxManifestBytes ?? MAX_MANIFEST_BYTES;
  const context = treeReader(dir, maxBytes);
  const found: { path: string; extractor: Extractor }[] = [];
  for await (const file of walkTree(dir, ignored, (child) => !isFixturePath(child))) {
    const extractor = extractorFor(file, extractors);
    if (extractor) found.push({ path: file, extractor });
  }
  found.sort((a, b) => a.path.localeCompare(b.path));

  const components: Component[] = [];
  const manifests: ManifestSummary[] = [];
  for (const { path: file, extractor } of found) {
    options.signal?.throwIfAborted();
    const text = await context.readFile(file);
    if (text === null) {
      options.onNote?.(`${file}: skipped, larger than ${maxBytes} bytes (BULWARK_SCAN_MAX_MANIFEST_BYTES)`);
      continue;
    }
    try {
      const extracted = await extractor.extract({ path: file, text }, context);
      components.push(...extracted);
      manifests.push({ path: file, extractor: extractor.id, components: extracted.length });
    } catch (error) {
      // Whatever an extractor fails on (a parser's own refusal included), that file is skipped and said; the
      // other files' components stay.
      options.signal?.throwIfAborted();
      options.onNote?.(error instanceof ExtractError ? `${error.message} (skipped)` : `${file}: could not be read as ${extractor.id}: ${parserReason(error)} (skipped)`);
    }
  }
  return { components: uniqueComponents(components), manifests };
}

/** Reads files of the tree by root-relative path, refusing anything that would leave it (src/scm/work-tree.ts). */
function treeReader(dir: string, maxBytes: number): ExtractContext {
  return { readFile: (relative) => readTreeText(dir, relative, maxBytes) };
}

/** One entry per package version per file; a file may name a package twice (`-r` includes, several frameworks). */
function uniqueComponents(components: Component[]): Component[] {
  const seen = new Map<string, Component>();
  for (const c of components) {
    const key = `${c.sourceFile}\u0000${c.purl}`;
    const known = seen.get(key);
    if (!known) seen.set(key, c);
    else if (known.direct !== true && c.direct === true) seen.set(key, { ...known, direct: true });
  }
  return [...seen.values()];
}

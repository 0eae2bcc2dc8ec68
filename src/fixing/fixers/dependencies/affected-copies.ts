import path from 'node:path';
import { packageKey } from '../../../osv/package-key.ts';
import { versionScheme } from '../../../osv/versions.ts';
import type { Component, Ecosystem } from '../../../inventory/component.ts';
import type { ExtractContext, Extractor } from '../../../inventory/extractors/extractor.ts';
import { extractorFor as registeredExtractorFor } from '../../../inventory/extractors/index.ts';
import { requirementsExtractor } from '../../../inventory/extractors/python-requirements/python-requirements.ts';

// What the scan would still see of a vulnerable package in a manifest: the file read again by its
// extractor, and the copies of the package the finding's versions say are affected.

export interface AffectedPackage {
  name: string;
  ecosystem: Ecosystem;
  installed: string;
  /** Null when no fix is published. */
  fixed: string | null;
}

/** The extractor the inventory uses for a file; any `.txt` of a Python project may be an included requirements file. */
export function extractorFor(file: string, ecosystem: Ecosystem): Extractor | undefined {
  const base = path.posix.basename(file);
  return registeredExtractorFor(file) ?? (ecosystem === 'PyPI' && base.endsWith('.txt') ? requirementsExtractor : undefined);
}

/**
 * The file's copies of the package at the installed version or between it and the fixed one (at or above
 * it when no fix is published); a copy below the installed version is not judged, as the finding does not
 * record where the advisory's range starts. Null when no extractor reads the file; an unreadable file
 * throws the extractor's ExtractError.
 */
export async function affectedCopies(file: string, text: string, target: AffectedPackage, context: ExtractContext): Promise<Component[] | null> {
  const extractor = extractorFor(file, target.ecosystem);
  if (!extractor) return null;
  const components = await extractor.extract({ path: file, text }, context);
  const scheme = versionScheme(target.ecosystem);
  const key = packageKey(target.ecosystem, target.name);
  const comparable = (version: string | null): version is string => version !== null && scheme.isValid(version);
  return components.filter((c) => {
    if (c.sourceFile !== file || packageKey(c.ecosystem, c.name) !== key) return false;
    if (c.version === target.installed) return true;
    if (!comparable(c.version) || !comparable(target.installed) || scheme.compare(c.version, target.installed) < 0) return false;
    return !comparable(target.fixed) || scheme.compare(c.version, target.fixed) < 0;
  });
}

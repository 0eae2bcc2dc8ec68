import fs from 'node:fs';
import path from 'node:path';

/** The published wire contract, kept in the repository so the suite runs from a bare clone. */
export const CONTRACT_FIXTURES_DIR = path.resolve(import.meta.dirname, '../fixtures/contract');

/** Where the contract is published, beside the repository; `BULWARK_CONTRACT_DIR` points elsewhere. */
export const PUBLISHED_CONTRACT_DIR = path.resolve(
  process.env.BULWARK_CONTRACT_DIR ?? path.join(import.meta.dirname, '../../../shared/contract'),
);

/** The contract documents: the route families' OpenAPI (the conformance test compares the generated document with them) and the device flow's schemas. */
export function contractFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.openapi.json') || name.endsWith('.schemas.json'))
    .sort();
}

/** Files that differ between the published contract and the fixtures: missing, extra or changed. */
export function contractDrift(publishedDir: string, fixturesDir: string): string[] {
  const published = contractFiles(publishedDir);
  const fixtures = contractFiles(fixturesDir);
  const drift: string[] = [];
  for (const name of published) {
    if (!fixtures.includes(name)) drift.push(`${name}: not in ${fixturesDir}`);
    else if (!fs.readFileSync(path.join(publishedDir, name)).equals(fs.readFileSync(path.join(fixturesDir, name)))) {
      drift.push(`${name}: differs from the published contract`);
    }
  }
  for (const name of fixtures) if (!published.includes(name)) drift.push(`${name}: no longer published`);
  return drift;
}

/** Makes the fixtures an exact copy of the published contract documents; returns the files written or removed. */
export function syncContract(publishedDir: string, fixturesDir: string): string[] {
  fs.mkdirSync(fixturesDir, { recursive: true });
  const published = contractFiles(publishedDir);
  const changed: string[] = [];
  for (const name of published) {
    const source = fs.readFileSync(path.join(publishedDir, name));
    const target = path.join(fixturesDir, name);
    if (!fs.existsSync(target) || !fs.readFileSync(target).equals(source)) {
      fs.writeFileSync(target, source);
      changed.push(name);
    }
  }
  for (const name of contractFiles(fixturesDir)) {
    if (!published.includes(name)) {
      fs.rmSync(path.join(fixturesDir, name));
      changed.push(name);
    }
  }
  return changed;
}

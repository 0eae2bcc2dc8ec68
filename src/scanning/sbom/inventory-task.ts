import { buildInventory, type Inventory } from '../../inventory/inventory.ts';

// The SBOM engine's inventory (reading and parsing every manifest and lockfile) and its CycloneDX document,
// made in a thread of the engine pool (see sbom-engine.ts), so a large lockfile never holds up the thread
// that answers requests; the notes it made come back with them.

export async function inventoryOf(
  dir: string,
  maxManifestBytes?: number,
  subject: { name: string; version?: string } = { name: dir },
): Promise<{ inventory: Inventory; notes: string[]; bom: string }> {
  const notes: string[] = [];
  const inventory = await buildInventory(dir, { maxManifestBytes, onNote: (note) => notes.push(note) });
  // The CycloneDX library is loaded by the first SBOM scan, not by every process that might run one.
  const { cyclonedxJson } = await import('../../inventory/cyclonedx.ts');
  return { inventory, notes, bom: cyclonedxJson(subject, inventory.components) };
}

import { buildInventory, type Inventory } from '../../sbom/inventory.ts';

// The SBOM engine's inventory (reading and parsing every manifest and lockfile), run in a thread of the
// engine pool (see sbom-engine.ts); the notes it made come back with it.

export async function inventoryOf(dir: string, maxManifestBytes?: number): Promise<{ inventory: Inventory; notes: string[] }> {
  const notes: string[] = [];
  const inventory = await buildInventory(dir, { maxManifestBytes, onNote: (note) => notes.push(note) });
  return { inventory, notes };
}

import type { Kysely } from 'kysely';
import type { ScanArtifact } from '../engines/engine.ts';
import type { Database } from './schema.ts';

/** Stores a scan's documents, one per kind; a rerun of the scan replaces them. */
export async function upsertScanArtifacts(db: Kysely<Database>, scanId: string, artifacts: ScanArtifact[], now: string): Promise<void> {
  for (const artifact of artifacts) {
    await db
      .insertInto('scan_artifacts')
      .values({ scan_id: scanId, kind: artifact.kind, content: artifact.content, created_at: now })
      .onConflict((oc) => oc.columns(['scan_id', 'kind']).doUpdateSet({ content: artifact.content, created_at: now }))
      .execute();
  }
}

export async function scanArtifactContent(db: Kysely<Database>, scanId: string, kind: ScanArtifact['kind']): Promise<string | undefined> {
  const row = await db.selectFrom('scan_artifacts').select('content').where('scan_id', '=', scanId).where('kind', '=', kind).executeTakeFirst();
  return row?.content;
}

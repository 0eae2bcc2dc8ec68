import type { Kysely } from 'kysely';
import type { ScanArtifact } from '../engines/engine.ts';
import { nowIso } from '../ids.ts';
import type { Database } from '../store/schema.ts';

/** Keeps what a scan produced besides findings; a scan run again replaces its earlier documents. */
export async function storeArtifacts(db: Kysely<Database>, scanId: string, artifacts: ScanArtifact[]): Promise<void> {
  for (const artifact of artifacts) {
    await db
      .insertInto('scan_artifacts')
      .values({ scan_id: scanId, kind: artifact.kind, content: artifact.content, created_at: nowIso() })
      .onConflict((oc) => oc.columns(['scan_id', 'kind']).doUpdateSet({ content: artifact.content, created_at: nowIso() }))
      .execute();
  }
}

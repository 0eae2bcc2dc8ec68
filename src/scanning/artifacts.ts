import type { Kysely } from 'kysely';
import type { ScanArtifact } from '../engines/engine.ts';
import { nowIso } from '../ids.ts';
import { upsertScanArtifacts } from '../store/scan-artifacts.ts';
import type { Database } from '../store/schema.ts';

/** Keeps what a scan produced besides findings; a scan run again replaces its earlier documents. */
export async function storeArtifacts(db: Kysely<Database>, scanId: string, artifacts: ScanArtifact[]): Promise<void> {
  await upsertScanArtifacts(db, scanId, artifacts, nowIso());
}

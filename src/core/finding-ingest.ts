import type { Kysely } from 'kysely';
import type { RawFinding } from '../engines/engine.ts';
import { newId, nowIso } from '../ids.ts';
import type { Database, FindingRow, ScanBatchRow, ScanRow } from '../store/schema.ts';
import { recordEvent } from './finding-events.ts';

/** Statuses that mean "still a problem as far as anyone knows": these resolve when a scan stops seeing them. */
const AUTO_RESOLVABLE = ['open', 'needs_manual_review'];

/**
 * Stores what one per-repo scan found. New fingerprints become open findings (`detected`); known ones
 * get `last_detected_at` and the batch of this detection; resolved ones reopen (`reopened`); the
 * caller's `ignored` and `false_positive` stand. Idempotent: running it twice for a scan changes nothing more.
 */
export async function ingestScanFindings(
  db: Kysely<Database>,
  batch: ScanBatchRow,
  scan: ScanRow,
  found: RawFinding[],
): Promise<number> {
  const unique = new Map(found.map((f) => [f.fingerprint, f]));
  await db.transaction().execute(async (trx) => {
    const now = nowIso();
    const existing = new Map<string, FindingRow>();
    const fingerprints = [...unique.keys()];
    for (let i = 0; i < fingerprints.length; i += 500) {
      const rows = await trx
        .selectFrom('findings')
        .selectAll()
        .where('unit_id', '=', batch.unit_id)
        .where('scan_type', '=', batch.scan_type)
        .where('fingerprint', 'in', fingerprints.slice(i, i + 500))
        .execute();
      for (const row of rows) existing.set(row.fingerprint, row);
    }
    for (const raw of unique.values()) {
      const located = {
        source_repo_id: scan.source_repo_id,
        scan_batch_id: batch.id,
        scan_id: scan.id,
        check_id: raw.checkId,
        severity: raw.severity,
        category: raw.category,
        title: raw.title,
        message: raw.message,
        file_path: raw.filePath,
        start_line: raw.startLine,
        end_line: raw.endLine,
        cwe: JSON.stringify(raw.cwe),
        owasp: JSON.stringify(raw.owasp),
        references: JSON.stringify(raw.references),
        commit_sha: raw.commitSha ?? scan.commit_sha,
        metadata: JSON.stringify(raw.metadata),
        source_url: raw.sourceUrl ?? null,
        cvss_base_score: raw.cvss?.baseScore ?? null,
        cvss_severity: raw.cvss?.severity ?? null,
        cvss_vector: raw.cvss?.vector ?? null,
        last_detected_at: now,
        updated_at: now,
      };
      const known = existing.get(raw.fingerprint);
      if (!known) {
        const row: FindingRow = {
          id: newId(),
          org_id: batch.org_id,
          unit_id: batch.unit_id,
          scan_type: batch.scan_type,
          fingerprint: raw.fingerprint,
          status: 'open',
          first_detected_at: now,
          resolved_at: null,
          created_at: now,
          ...located,
        };
        await trx.insertInto('findings').values(row).execute();
        await recordEvent(trx, { finding: row, eventType: 'detected', newStatus: 'open', scanId: batch.id, at: now });
        continue;
      }
      const reopen = known.status === 'resolved';
      const status = reopen ? 'open' : known.status;
      const resolvedAt = reopen ? null : known.resolved_at;
      await trx.updateTable('findings').set({ ...located, status, resolved_at: resolvedAt }).where('id', '=', known.id).execute();
      if (reopen) {
        await recordEvent(trx, {
          finding: { ...known, ...located, status, resolved_at: resolvedAt },
          eventType: 'reopened',
          previousStatus: 'resolved',
          newStatus: 'open',
          scanId: batch.id,
          at: now,
        });
      }
    }
  });
  return unique.size;
}

/**
 * After a completed scan, what it no longer sees in that source repo is fixed: such findings resolve
 * with a `resolved_auto` event. Only findings last seen by another scan qualify.
 */
export async function resolveUnseenFindings(db: Kysely<Database>, batch: ScanBatchRow, scan: ScanRow): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const gone = await trx
      .selectFrom('findings')
      .selectAll()
      .where('unit_id', '=', batch.unit_id)
      .where('scan_type', '=', batch.scan_type)
      .where('source_repo_id', '=', scan.source_repo_id)
      .where('status', 'in', AUTO_RESOLVABLE)
      .where((eb) => eb.or([eb('scan_id', 'is', null), eb('scan_id', '!=', scan.id)]))
      .execute();
    const now = nowIso();
    for (const finding of gone) {
      await trx.updateTable('findings').set({ status: 'resolved', resolved_at: now, updated_at: now }).where('id', '=', finding.id).execute();
      await recordEvent(trx, {
        finding: { ...finding, status: 'resolved', resolved_at: now },
        eventType: 'resolved_auto',
        previousStatus: finding.status,
        newStatus: 'resolved',
        scanId: batch.id,
        metadata: { reason: 'not detected by a later completed scan' },
        at: now,
      });
    }
    await trx.updateTable('scans').set({ assessed: 1 }).where('id', '=', scan.id).execute();
    return gone.length;
  });
}

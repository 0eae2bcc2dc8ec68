import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Unit } from '../../src/core/units.ts';
import { insertFindings, listFindings } from '../../src/store/findings.ts';
import { planOf, queryRecorder } from '../../src/store/query-plans.ts';
import type { FindingRow } from '../../src/store/schema.ts';
import { expectStatus, withQuery } from '../support/helpers.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { findingRow } from '../support/finding-rows.ts';

// `?scan_type=X` lists every finding X detected, also those another type found first (`detected_by`).
// Each list of types a finding can hold is a range of the index findings_unit_detection_order (migration
// 024), so a filtered page is a seek whatever the unit's other findings: several lists holding X are
// read side by side in the list's order, never gathered and sorted.

const INDEX = 'findings_unit_detection_order';
/** The lists of scan types the findings hold, in turn; `deep_ai_scan` is in four of them. */
const DETECTED_BY = [
  ['semgrep_scan'],
  ['semgrep_scan', 'deep_ai_scan'],
  ['secrets_scan'],
  ['deep_ai_scan'],
  ['deep_ai_scan', 'semgrep_scan'],
  ['sbom_scan'],
  ['semgrep_scan', 'secrets_scan', 'deep_ai_scan'],
];
const TYPES = ['semgrep_scan', 'deep_ai_scan', 'secrets_scan', 'sbom_scan'];
const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;

let h: Harness;
let org: TestOrg;
let unit: Unit;
let rows: FindingRow[] = [];

const at = (i: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, Math.floor(i / 4))).toISOString();

function made(u: Unit, i: number): FindingRow {
  const detectedBy = DETECTED_BY[i % DETECTED_BY.length];
  return findingRow(u, {
    scan_type: detectedBy[0] as FindingRow['scan_type'],
    detected_by: JSON.stringify(detectedBy),
    severity: SEVERITIES[i % 4],
    status: i % 3 === 0 ? 'ignored' : 'open',
    scan_batch_id: i % 2 ? 'batch-a' : 'batch-b',
    created_at: at(i),
  });
}

const newestFirst = (list: FindingRow[]) => [...list].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));

before(async () => {
  h = await createHarness();
  org = await h.org('scan-type-filter');
  unit = await h.unit(org, ['github:acme/detections@main']);
  const other = await h.unit(org, ['github:acme/elsewhere@main']);
  rows = Array.from({ length: 420 }, (_, i) => made(unit, i));
  await insertFindings(h.database.store.db, rows);
  await insertFindings(h.database.store.db, Array.from({ length: 40 }, (_, i) => made(other, i)));
});
after(() => h.close());

describe('the scan-type filter of the finding list', () => {
  test('lists every finding a type detected, first and deep pages, alone and with other filters', async () => {
    const cases: Record<string, string | undefined>[] = [
      ...TYPES.map((scan_type) => ({ scan_type })),
      { scan_type: 'deep_ai_scan', severity: 'high' },
      { scan_type: 'semgrep_scan', status: 'ignored' },
      { scan_type: 'secrets_scan', scan_batch_id: 'batch-a' },
      { scan_type: 'deep_ai_scan', sort: 'severity' },
    ];
    for (const filters of cases) {
      let matching = newestFirst(rows).filter(
        (r) =>
          (JSON.parse(r.detected_by) as string[]).includes(filters.scan_type!) &&
          (!filters.severity || r.severity === filters.severity) &&
          (!filters.status || r.status === filters.status) &&
          (!filters.scan_batch_id || r.scan_batch_id === filters.scan_batch_id),
      );
      if (filters.sort === 'severity') matching = SEVERITIES.flatMap((s) => matching.filter((r) => r.severity === s));
      // Far before near, each asked twice: the second time from the remembered page start.
      for (const skip of [0, 110, 110, 20, 20, 40, 235, 600]) {
        const url = withQuery(`/api/v1/repositories/${unit.id}/findings`, { ...filters, limit: 20, skip });
        const body = expectStatus(await h.call('GET', url, { key: org.key }), 200);
        assert.equal(body.total, matching.length, `total of ${JSON.stringify(filters)}`);
        assert.deepEqual(body.items.map((f: { id: string }) => f.id), matching.slice(skip, skip + 20).map((r) => r.id), `skip ${skip} of ${JSON.stringify(filters)}`);
        for (const item of body.items as { scan_type: string; detected_by: string[] }[]) {
          assert.ok(item.detected_by.includes(filters.scan_type!));
          assert.equal(item.scan_type, item.detected_by[0]);
        }
      }
    }
  });

  test(`every read of a filtered page is a range of ${INDEX}, merged in order where several lists hold the type`, async () => {
    for (const scanType of TYPES) {
      for (const skip of [0, 30, 30]) {
        const recorder = queryRecorder();
        await listFindings(h.database.store.db.withPlugin(recorder.plugin), unit.id, { scanType, limit: 10, skip });
        const plans = await Promise.all(recorder.queries.map((q) => planOf(h.database.store.db, q)));
        const label = `${scanType} skip ${skip}`;
        const findingReads = plans.map((plan) => plan.join('\n')).filter((text) => /\bfindings\b/.test(text) && !/finding_counts/.test(text));
        assert.ok(findingReads.length > 0, `${label}: no findings read`);
        for (const text of plans.map((plan) => plan.join('\n'))) {
          if (process.env.BULWARK_SHOW_PLANS) console.log(`-- ${label}\n${text}`);
          assert.doesNotMatch(text, /\bSCAN (findings|finding_counts)\b|Seq Scan on (findings|finding_counts)\b/, `${label}: full scan\n${text}`);
          // A Merge Append's "Sort Key" names the order it keeps; a Sort node would gather the rows and sort them.
          assert.doesNotMatch(text, /TEMP B-TREE FOR ORDER BY|^(\s*->)?\s*(Incremental )?Sort\s+\(/m, `${label}: sorts\n${text}`);
        }
        // A page's rows fetched by id (a deep page's walk ends so) are primary-key reads; every other read is the index's.
        for (const text of findingReads.filter((t) => !/\bid IN|id = ANY|\(id=\?\)/i.test(t) || new RegExp(INDEX).test(t))) {
          assert.match(text, new RegExp(INDEX), `${label}: not read through ${INDEX}\n${text}`);
          assert.doesNotMatch(text, /findings_unit_order\b/, `${label}: walks the whole unit\n${text}`);
        }
      }
    }
  });
});

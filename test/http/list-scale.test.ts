import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '../../src/ids.ts';
import { insertFindingEvents, listFindingEvents } from '../../src/store/finding-events.ts';
import { insertFindings, listFindings } from '../../src/store/findings.ts';
import { planOf, queryRecorder } from '../../src/store/query-plans.ts';
import type { FindingEventRow, FindingRow } from '../../src/store/schema.ts';
import type { Unit } from '../../src/core/units.ts';
import { expectStatus, withQuery } from '../support/helpers.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { findingRow } from '../support/finding-rows.ts';

// Totals come from trigger-kept counters and deep pages seek from remembered starts: both must say
// exactly what counting and sorting every row would, through inserts, triage and deletes.

const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
const STATUSES = ['open', 'resolved', 'ignored'] as const;
const TYPES = ['semgrep_scan', 'secrets_scan'] as const;
const BATCHES = ['batch-a', 'batch-b', null];

let h: Harness;
let org: TestOrg;
let unit: Unit;
let other: Unit;
/** What the database should hold for `unit`, kept in step with every change the tests make. */
let rows: FindingRow[] = [];

const at = (i: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, Math.floor(i / 3))).toISOString();

function made(u: Unit, i: number): FindingRow {
  return findingRow(u, {
    severity: SEVERITIES[i % 4],
    status: STATUSES[i % 3],
    scan_type: TYPES[i % 2],
    scan_batch_id: BATCHES[i % 5 === 0 ? 2 : i % 2],
    created_at: at(i),
  });
}

/** Newest first, ties by id, as every list promises. */
const newestFirst = (list: FindingRow[]) => [...list].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));

async function page(query: Record<string, string | number | undefined>) {
  return expectStatus(await h.call('GET', withQuery(`/api/v1/repositories/${unit.id}/findings`, query), { key: org.key }), 200);
}

function expected(query: { severity?: string; status?: string; scan_type?: string; scan_batch_id?: string; limit: number; skip: number }) {
  const matching = newestFirst(rows).filter(
    (r) =>
      (!query.severity || r.severity === query.severity) &&
      (!query.status || r.status === query.status) &&
      (!query.scan_type || r.scan_type === query.scan_type) &&
      (!query.scan_batch_id || r.scan_batch_id === query.scan_batch_id),
  );
  return { total: matching.length, ids: matching.slice(query.skip, query.skip + query.limit).map((r) => r.id) };
}

async function expectPage(query: { severity?: string; status?: string; scan_type?: string; scan_batch_id?: string; limit: number; skip: number }) {
  const body = await page(query);
  const want = expected(query);
  assert.equal(body.total, want.total, `total of ${JSON.stringify(query)}`);
  assert.deepEqual(body.items.map((f: { id: string }) => f.id), want.ids, `page of ${JSON.stringify(query)}`);
  assert.equal(body.has_next, query.skip + want.ids.length < want.total);
}

before(async () => {
  h = await createHarness();
  org = await h.org('scale');
  unit = await h.unit(org, ['github:acme/big@main']);
  other = await h.unit(org, ['github:acme/other@main']);
  rows = Array.from({ length: 240 }, (_, i) => made(unit, i));
  await insertFindings(h.database.store.db, rows);
  await insertFindings(h.database.store.db, Array.from({ length: 30 }, (_, i) => made(other, i)));
});
after(() => h.close());

describe('finding lists at scale', () => {
  test('totals match a count of the rows for every filter, alone and combined', async () => {
    for (const severity of [undefined, ...SEVERITIES]) {
      for (const status of [undefined, ...STATUSES]) {
        await expectPage({ severity, status, limit: 5, skip: 0 });
      }
    }
    for (const scan_type of TYPES) await expectPage({ scan_type, limit: 5, skip: 0 });
    for (const scan_batch_id of ['batch-a', 'batch-b']) await expectPage({ scan_batch_id, limit: 5, skip: 0 });
  });

  test('deep pages, asked once, again, and page after page, are the pages a full sort gives', async () => {
    for (const skip of [150, 150, 230, 239, 240, 500]) await expectPage({ limit: 10, skip });
    for (let skip = 0; skip < 240; skip += 40) await expectPage({ limit: 40, skip });
    for (let skip = 0; skip < 90; skip += 20) await expectPage({ severity: 'high', limit: 20, skip });
  });

  test('inserts, triage and deletes move totals and deep pages alike', async () => {
    await expectPage({ limit: 10, skip: 100 });
    await expectPage({ status: 'open', limit: 10, skip: 40 });

    const newer = Array.from({ length: 7 }, (_, i) => made(unit, 1000 + i));
    await insertFindings(h.database.store.db, newer);
    rows.push(...newer);
    await expectPage({ limit: 10, skip: 100 });

    // Triage moves a finding out of the `open` list: the page at the same skip shifts by one.
    const open = newestFirst(rows).filter((r) => r.status === 'open');
    const target = open[3];
    expectStatus(await h.call('PATCH', `/api/v1/repositories/${unit.id}/findings/${target.id}`, { key: org.key, body: { status: 'ignored' } }), 200);
    target.status = 'ignored';
    await expectPage({ status: 'open', limit: 10, skip: 40 });
    await expectPage({ status: 'ignored', limit: 10, skip: 0 });

    // A unit's deletion takes its findings and their counts with it; the other unit's stay.
    await h.database.store.db.deleteFrom('units').where('id', '=', other.id).execute();
    const body = expectStatus(await h.call('GET', `/api/v1/repositories/${unit.id}/findings`, { key: org.key }), 200);
    assert.equal(body.total, rows.length);
  });
});

describe('deep pages past many checkpoints', () => {
  test('a page anywhere in a long list, in any order, after the list changed too, is the page a full sort gives', async () => {
    const big = await h.unit(org, ['github:acme/huge@main']);
    let all = Array.from({ length: 3_600 }, (_, i) => made(big, i));
    await insertFindings(h.database.store.db, all);
    const check = async (skip: number, limit = 25) => {
      const body = expectStatus(await h.call('GET', withQuery(`/api/v1/repositories/${big.id}/findings`, { limit, skip }), { key: org.key }), 200);
      assert.deepEqual(body.items.map((f: { id: string }) => f.id), newestFirst(all).slice(skip, skip + limit).map((r) => r.id), `skip ${skip}`);
    };
    // Far first (no start known), then nearer and farther ones, on and beside checkpoints, and past the end.
    for (const skip of [3_100, 1_500, 999, 1_000, 1_001, 2_000, 2_999, 3_575, 3_599, 3_600, 5_000, 1, 2_500, 3_100]) await check(skip);
    const newer = Array.from({ length: 40 }, (_, i) => made(big, 9_000 + i));
    await insertFindings(h.database.store.db, newer);
    all = [...all, ...newer];
    for (const skip of [3_100, 1_500, 2_001, 3_620]) await check(skip);
  });
});

describe('event feed at scale', () => {
  test('totals and deep pages of the feed match its rows, for each counted filter', async () => {
    const o = await h.org('feed');
    const u = await h.unit(o, ['github:acme/feed@main']);
    const v = await h.unit(o, ['github:acme/feed2@main']);
    const types = ['detected', 'status_changed', 'resolved_auto'];
    const events: FindingEventRow[] = Array.from({ length: 150 }, (_, i) => ({
      id: newId(), org_id: o.id, unit_id: i % 3 === 0 ? v.id : u.id, finding_id: `f-${i % 10}`, scan_id: null,
      scan_type: i % 4 === 0 ? null : TYPES[i % 2], event_type: types[i % 3], previous_status: null, new_status: null,
      severity: SEVERITIES[i % 4], check_id: null, file_path: null, actor_user_id: null, metadata: '{}', comment: null,
      event_timestamp: at(i), created_at: at(i),
    }));
    await insertFindingEvents(h.database.store.db, events);
    const sorted = [...events].sort((a, b) => (a.event_timestamp === b.event_timestamp ? (a.id < b.id ? 1 : -1) : a.event_timestamp < b.event_timestamp ? 1 : -1));
    const cases: [Record<string, string>, (e: FindingEventRow) => boolean][] = [
      [{}, () => true],
      [{ repository_id: v.id }, (e) => e.unit_id === v.id],
      [{ repository_id: v.id, severity: 'HIGH' }, (e) => e.unit_id === v.id && e.severity === 'high'],
      [{ event_type: 'status_changed' }, (e) => e.event_type === 'status_changed'],
      [{ event_type: 'detected', severity: 'low' }, (e) => e.event_type === 'detected' && e.severity === 'low'],
      [{ severity: 'HIGH' }, (e) => e.severity === 'high'],
      [{ scan_type: 'secrets_scan' }, (e) => e.scan_type === 'secrets_scan'],
      [{ finding_id: 'f-3' }, (e) => e.finding_id === 'f-3'],
      [{ start: at(40), end: at(90) }, (e) => e.event_timestamp >= at(40) && e.event_timestamp <= at(90)],
    ];
    for (const [filters, keep] of cases) {
      const matching = sorted.filter(keep);
      for (const skip of [0, 7, 30, 30]) {
        const body = expectStatus(await h.call('GET', withQuery('/api/v1/finding-events', { ...filters, limit: 10, skip }), { key: o.key }), 200);
        assert.equal(body.total, matching.length, `total of ${JSON.stringify(filters)}`);
        assert.deepEqual(body.items.map((e: { id: string }) => e.id), matching.slice(skip, skip + 10).map((e) => e.id), `page ${skip} of ${JSON.stringify(filters)}`);
      }
    }

    // Newer events move every total and shift the pages already read, with or without a unit filter.
    const newer = events.slice(0, 6).map((e, i) => ({ ...e, id: newId(), event_timestamp: at(1000 + i), created_at: at(1000 + i) }));
    await insertFindingEvents(h.database.store.db, newer);
    const all = [...newer].reverse().concat(sorted);
    for (const [filters, keep] of cases.slice(0, 4)) {
      const body = expectStatus(await h.call('GET', withQuery('/api/v1/finding-events', { ...filters, limit: 10, skip: 30 }), { key: o.key }), 200);
      assert.equal(body.total, all.filter(keep).length, `total of ${JSON.stringify(filters)} after newer events`);
      assert.deepEqual(body.items.map((e: { id: string }) => e.id), all.filter(keep).slice(30, 40).map((e) => e.id), `page of ${JSON.stringify(filters)} after newer events`);
    }
  });
});

describe('query plans of the hot list queries', () => {
  /** Every query a list call runs, with the plan the database picks for it. */
  async function plansOf(run: (db: typeof h.database.store.db) => Promise<unknown>) {
    const recorder = queryRecorder();
    await run(h.database.store.db.withPlugin(recorder.plugin));
    return Promise.all(recorder.queries.map((q) => planOf(h.database.store.db, q)));
  }

  /** No step reads a whole findings or events table (or index), and none sorts: each is a seek. */
  function assertSeeks(plans: string[][], label: string) {
    assert.ok(plans.length > 0, `${label}: no query ran`);
    for (const plan of plans) {
      const text = plan.join('\n');
      assert.doesNotMatch(text, /\bSCAN (findings|finding_events|finding_counts|finding_event_counts|finding_event_org_counts)\b/, `${label}: full scan\n${text}`);
      assert.doesNotMatch(text, /Seq Scan on (findings|finding_events|finding_counts|finding_event_counts|finding_event_org_counts)\b/, `${label}: full scan\n${text}`);
      assert.doesNotMatch(text, /TEMP B-TREE FOR ORDER BY|(^|\s)Sort\b|Incremental Sort/, `${label}: sorts\n${text}`);
    }
  }

  test('every findings filter, first and deep pages, and the counters behind the total are seeks', async () => {
    const filters = [{}, { severity: 'high' }, { status: 'open' }, { scanType: 'secrets_scan' }, { scanBatchId: 'batch-a' }];
    for (const f of filters) {
      for (const skip of [0, 120, 120]) {
        assertSeeks(await plansOf((db) => listFindings(db, unit.id, { ...f, limit: 10, skip })), `findings ${JSON.stringify(f)} skip ${skip}`);
      }
    }
  });

  test('every event filter, first and deep pages, are seeks', async () => {
    const filters = [{}, { unitId: unit.id }, { eventType: 'detected' }, { severity: 'high' }, { scanType: 'secrets_scan' }, { findingId: 'f-1' }];
    for (const f of filters) {
      for (const skip of [0, 20, 20]) {
        assertSeeks(await plansOf((db) => listFindingEvents(db, org.id, { ...f, limit: 10, skip })), `events ${JSON.stringify(f)} skip ${skip}`);
      }
    }
  });
});

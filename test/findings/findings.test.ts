import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '../../src/ids.ts';
import type { FindingRow } from '../../src/store/schema.ts';
import { FAMILIES, expectApiError, expectStatus, expectValidationError, readEvents, withQuery, type FamilyCase } from '../support/helpers.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';

/** What the contract promises a client for a stored finding row, in that family's shape. */
function wireFinding(family: FamilyCase, row: FindingRow) {
  return {
    id: row.id,
    [family.idField]: row.unit_id,
    check_id: row.check_id,
    severity: row.severity,
    status: row.status,
    file_path: row.file_path,
    message: row.message,
    category: row.category,
    scan_type: row.scan_type,
    scan_batch_id: row.scan_batch_id,
    cwe: JSON.parse(row.cwe),
    owasp: JSON.parse(row.owasp),
    references: JSON.parse(row.references),
    source_url: row.source_url,
    cvss_base_score: row.cvss_base_score,
    cvss_severity: row.cvss_severity,
    cvss_vector: row.cvss_vector,
    first_detected_at: row.first_detected_at,
    last_detected_at: row.last_detected_at,
    resolved_at: row.resolved_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...Object.fromEntries(family.findingFields.map((field) => [field, row[field]])),
  };
}

/** The listed keys of `value`; a missing key shows up as undefined, so a deepEqual catches it. */
function pick(value: Record<string, unknown>, keys: string[]) {
  return Object.fromEntries(keys.map((key) => [key, value[key]]));
}

const day = (n: number) => `2024-01-${String(n).padStart(2, '0')}T00:00:00.000Z`;

let h: Harness;
let org: TestOrg;
before(async () => {
  h = await createHarness();
  org = await h.org('acme'); // the first organization's key is the harness default
});
after(() => h.close());

for (const family of FAMILIES) {
  describe(`/api/v1/${family.collection}/{${family.idField}}/findings`, () => {
    /** A unit of its own for each test, and the path of its findings collection. */
    async function freshUnit() {
      const unit = await h.unit(org, ['github:acme/api@main']);
      return { unit, base: `/api/v1/${family.collection}/${unit.id}/findings` };
    }
    const list = async (base: string, query?: Record<string, string | number>) =>
      expectStatus(await h.call('GET', withQuery(base, query)), 200);
    const listIds = async (base: string, query?: Record<string, string | number>) =>
      (await list(base, query)).items.map((f: { id: string }) => f.id);
    const statusEvents = async (findingId: string) =>
      (await readEvents(h, org.key, { finding_id: findingId, event_type: 'status_changed' })).items;

    describe('list', () => {
      test('returns the contract fields of the unit’s findings, newest first', async () => {
        const { unit, base } = await freshUnit();
        const oldest = await h.finding(unit, { created_at: day(1) });
        const newest = await h.finding(unit, {
          created_at: day(3),
          scan_type: 'semgrep_scan',
          scan_batch_id: newId(),
          severity: 'critical',
          check_id: 'sql-injection',
          category: 'injection',
          title: 'SQL injection',
          references: '["https://owasp.org/Top10/A03_2021-Injection/"]',
          source_url: 'https://github.com/acme/api/blob/main/src/db.js#L10',
          cvss_base_score: 9.8,
          cvss_severity: 'CRITICAL',
          cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
          status: 'resolved',
          resolved_at: day(4),
        });
        const middle = await h.finding(unit, { created_at: day(2) });
        const other = await freshUnit();
        await h.finding(other.unit, { created_at: day(5) });

        const { items, ...envelope } = await list(base);
        assert.deepEqual(envelope, { total: 3, limit: 50, skip: 0, has_next: false });
        assert.deepEqual(items.map((f: { id: string }) => f.id), [newest.id, middle.id, oldest.id]);
        const expected = wireFinding(family, newest);
        assert.deepEqual(pick(items[0], Object.keys(expected)), expected);
        assert.deepEqual(pick(items[2], Object.keys(expected)), wireFinding(family, oldest));
      });

      test('filters by scan_batch_id, severity, status and scan_type, alone and combined', async () => {
        const { unit, base } = await freshUnit();
        const [batchA, batchB] = [newId(), newId()];
        const a = await h.finding(unit, { scan_batch_id: batchA, severity: 'high', status: 'open', scan_type: 'secrets_scan' });
        const b = await h.finding(unit, { scan_batch_id: batchA, severity: 'low', status: 'resolved', scan_type: 'semgrep_scan' });
        const c = await h.finding(unit, { scan_batch_id: batchB, severity: 'high', status: 'ignored', scan_type: 'semgrep_scan' });
        const d = await h.finding(unit, { scan_batch_id: null, severity: 'critical', status: 'open', scan_type: 'secrets_scan' });

        const cases: [Record<string, string>, FindingRow[]][] = [
          [{ scan_batch_id: batchA }, [a, b]],
          [{ scan_batch_id: batchB }, [c]],
          [{ severity: 'high' }, [a, c]],
          [{ severity: 'critical' }, [d]],
          [{ status: 'open' }, [a, d]],
          [{ status: 'ignored' }, [c]],
          [{ scan_type: 'semgrep_scan' }, [b, c]],
          [{ scan_type: 'secrets_scan' }, [a, d]],
          [{ scan_batch_id: batchA, scan_type: 'semgrep_scan' }, [b]],
          [{ severity: 'high', status: 'open' }, [a]],
          [{ scan_batch_id: batchA, severity: 'high', status: 'open', scan_type: 'secrets_scan' }, [a]],
          [{ scan_batch_id: batchB, status: 'open' }, []],
        ];
        for (const [query, expected] of cases) {
          const page = await list(base, query);
          const label = JSON.stringify(query);
          assert.deepEqual(page.items.map((f: { id: string }) => f.id).sort(), expected.map((f) => f.id).sort(), label);
          assert.equal(page.total, expected.length, label);
        }
      });

      test('pages with limit and skip, reporting has_next', async () => {
        const { unit, base } = await freshUnit();
        const rows: FindingRow[] = [];
        for (let n = 1; n <= 5; n++) rows.push(await h.finding(unit, { created_at: day(n) }));
        const newestFirst = rows.map((r) => r.id).reverse();

        const first = await list(base, { limit: 2 });
        assert.deepEqual(first.items.map((f: { id: string }) => f.id), newestFirst.slice(0, 2));
        assert.deepEqual([first.total, first.limit, first.skip, first.has_next], [5, 2, 0, true]);
        const second = await list(base, { limit: 2, skip: 2 });
        assert.deepEqual(second.items.map((f: { id: string }) => f.id), newestFirst.slice(2, 4));
        assert.equal(second.has_next, true);
        const last = await list(base, { limit: 2, skip: 4 });
        assert.deepEqual(last.items.map((f: { id: string }) => f.id), newestFirst.slice(4));
        assert.equal(last.has_next, false);
        assert.deepEqual(await listIds(base, { skip: 5 }), []);

        expectValidationError(await h.call('GET', `${base}?limit=0`), ['query', 'limit'], 'greater_than_equal');
        expectValidationError(await h.call('GET', `${base}?limit=201`), ['query', 'limit'], 'less_than_equal');
        expectValidationError(await h.call('GET', `${base}?skip=-1`), ['query', 'skip'], 'greater_than_equal');
        assert.equal((await list(base, { limit: 200 })).items.length, 5);
      });
      test('sort=severity lists critical first and the newest first within a severity, paged and filtered alike', async () => {
        const { unit, base } = await freshUnit();
        const lowNew = await h.finding(unit, { severity: 'low', created_at: day(9) });
        const highOld = await h.finding(unit, { severity: 'high', created_at: day(1) });
        const criticalOld = await h.finding(unit, { severity: 'critical', created_at: day(2) });
        const highNew = await h.finding(unit, { severity: 'high', created_at: day(5), status: 'resolved' });
        const mediumMid = await h.finding(unit, { severity: 'medium', created_at: day(3) });
        const order = [criticalOld, highNew, highOld, mediumMid, lowNew].map((f) => f.id);
        assert.deepEqual(await listIds(base, { sort: 'severity' }), order);
        assert.deepEqual(await listIds(base, { sort: 'severity', limit: 2, skip: 2 }), order.slice(2, 4));
        assert.deepEqual(await listIds(base, { sort: 'severity', status: 'open' }), [criticalOld, highOld, mediumMid, lowNew].map((f) => f.id));
        assert.deepEqual(await listIds(base, { sort: 'newest' }), [lowNew, highNew, mediumMid, criticalOld, highOld].map((f) => f.id));
        expectValidationError(await h.call('GET', `${base}?sort=random`), ['query', 'sort'], 'enum');
      });
    });

    describe('read one', () => {
      test('returns the finding with its contract fields', async () => {
        const { unit, base } = await freshUnit();
        const row = await h.finding(unit, { title: 'Hard-coded password', start_line: 12, end_line: 14 });
        const body = expectStatus(await h.call('GET', `${base}/${row.id}`), 200);
        const expected = wireFinding(family, row);
        assert.deepEqual(pick(body, Object.keys(expected)), expected);
      });

      test('confidence: how many model runs confirmed a deep scan finding; null for other findings and unreviewed ones', async () => {
        const { unit, base } = await freshUnit();
        const reviewed = await h.finding(unit, { scan_type: 'deep_ai_scan', metadata: JSON.stringify({ verification: { runs: 3, confirmed: 2, reason: 'reachable' } }) });
        const unreviewed = await h.finding(unit, { scan_type: 'deep_ai_scan', metadata: '{}' });
        const other = await h.finding(unit, { scan_type: 'semgrep_scan', metadata: JSON.stringify({ verification: { runs: 1, confirmed: 1 } }) });
        const confidence = async (id: string) => expectStatus(await h.call('GET', `${base}/${id}`), 200).confidence;
        assert.equal(await confidence(reviewed.id), 2);
        assert.equal(await confidence(unreviewed.id), null);
        assert.equal(await confidence(other.id), null);
        const listed = (await list(base)).items.find((f: { id: string }) => f.id === reviewed.id);
        assert.equal(listed.confidence, 2);
      });

      test('answers 404 NOT_FOUND for an unknown id, another unit’s finding or an unknown unit', async () => {
        const { base } = await freshUnit();
        const other = await freshUnit();
        const foreign = await h.finding(other.unit);
        expectApiError(await h.call('GET', `${base}/${newId()}`), 404, 'NOT_FOUND');
        expectApiError(await h.call('GET', `${base}/${foreign.id}`), 404, 'NOT_FOUND');
        expectApiError(await h.call('GET', `/api/v1/${family.collection}/${newId()}/findings/${foreign.id}`), 404, 'NOT_FOUND');
      });
    });

    describe('PATCH status', () => {
      test('accepts each of the five statuses, returns the updated finding and records one event per change', async () => {
        const { unit, base } = await freshUnit();
        const triager = await h.key(org, ['read', 'finding:write'], 'triager');
        const row = await h.finding(unit, { status: 'open' });
        const steps = ['resolved', 'ignored', 'false_positive', 'needs_manual_review', 'open'];
        let previous = 'open';
        for (const [index, status] of steps.entries()) {
          const before = Date.now();
          const body = expectStatus(await h.call('PATCH', `${base}/${row.id}`, { key: triager.key, body: { status } }), 200);
          assert.equal(body.id, row.id);
          assert.equal(body[family.idField], unit.id);
          assert.equal(body.status, status);
          assert.deepEqual(expectStatus(await h.call('GET', `${base}/${row.id}`), 200), body, 'a read shows the change');
          if (status === 'resolved') assert.ok(Date.parse(body.resolved_at) >= before - 1, 'resolved sets resolved_at');
          if (status === 'open') assert.equal(body.resolved_at, null, 'reopening clears resolved_at');

          const events = await statusEvents(row.id);
          assert.equal(events.length, index + 1, `exactly one event per change (after ${status})`);
          const latest = events[0];
          assert.equal(latest.event_type, 'status_changed');
          assert.equal(latest.finding_id, row.id);
          assert.equal(latest.repository_id, unit.id);
          assert.equal(latest.previous_status, previous);
          assert.equal(latest.new_status, status);
          assert.equal(latest.actor_user_id, triager.id);
          previous = status;
        }
      });

      test('setting the status the finding already has changes nothing and writes no event', async () => {
        const { unit, base } = await freshUnit();
        const row = await h.finding(unit, { status: 'ignored' });
        const body = expectStatus(await h.call('PATCH', `${base}/${row.id}`, { body: { status: 'ignored' } }), 200);
        assert.deepEqual(pick(body, Object.keys(wireFinding(family, row))), wireFinding(family, row));
        assert.deepEqual(await statusEvents(row.id), []);
      });

      test('rejects an unknown or missing status with 422 and leaves the finding unchanged', async () => {
        const { unit, base } = await freshUnit();
        const row = await h.finding(unit);
        const before = expectStatus(await h.call('GET', `${base}/${row.id}`), 200);
        expectValidationError(await h.call('PATCH', `${base}/${row.id}`, { body: { status: 'closed' } }), ['body', 'status'], 'enum');
        expectValidationError(await h.call('PATCH', `${base}/${row.id}`, { body: {} }), ['body', 'status'], 'missing');
        assert.deepEqual(expectStatus(await h.call('GET', `${base}/${row.id}`), 200), before);
        assert.deepEqual(await statusEvents(row.id), []);
      });

      test('a finding the latest scan no longer sees cannot be reopened by hand: 422, unchanged; ignoring it still works', async () => {
        const { unit, base } = await freshUnit();
        const row = await h.finding(unit, { status: 'resolved', scan_verdict: 'gone', triage: 'open' });
        const before = expectStatus(await h.call('GET', `${base}/${row.id}`), 200);
        assert.equal(before.status, 'resolved');
        for (const status of ['open', 'needs_manual_review']) {
          const res = await h.call('PATCH', `${base}/${row.id}`, { body: { status } });
          expectValidationError(res, ['body', 'status'], 'value_error');
          assert.match(res.json().detail[0].msg, /no longer detects this finding/);
        }
        assert.deepEqual(expectStatus(await h.call('GET', `${base}/${row.id}`), 200), before);
        assert.deepEqual(await statusEvents(row.id), []);
        assert.equal(expectStatus(await h.call('PATCH', `${base}/${row.id}`, { body: { status: 'ignored' } }), 200).status, 'ignored');
      });

      test('answers 404 for an unknown finding and 403 for a key without finding:write', async () => {
        const { unit, base } = await freshUnit();
        const row = await h.finding(unit);
        expectApiError(await h.call('PATCH', `${base}/${newId()}`, { body: { status: 'resolved' } }), 404, 'NOT_FOUND');
        const reader = await h.key(org, ['read']);
        expectApiError(await h.call('PATCH', `${base}/${row.id}`, { key: reader.key, body: { status: 'resolved' } }), 403, 'INSUFFICIENT_SCOPE');
        assert.equal(expectStatus(await h.call('GET', `${base}/${row.id}`), 200).status, 'open');
        assert.deepEqual(await statusEvents(row.id), []);
      });
    });
  });
}

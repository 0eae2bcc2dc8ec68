import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { recordEvent, type EventInput } from '../../src/core/finding-events.ts';
import type { FindingEventRow } from '../../src/store/schema.ts';
import { expectStatus, expectValidationError, readEvents, withQuery } from '../support/helpers.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';

const FEED = '/api/v1/finding-events';
const ids = (page: { items: { id: string }[] }) => page.items.map((e) => e.id);

let h: Harness;
before(async () => {
  h = await createHarness();
});
after(() => h.close());

/** Stores events as the service would, with chosen timestamps, for filters that need a fixed timeline. */
const store = (input: EventInput) => recordEvent(h.database.store.db, input);

describe('GET /api/v1/finding-events', () => {
  test('lists events newest first with the contract fields, and the same ids on every read', async () => {
    const org = await h.org('ordering');
    const unit = await h.unit(org, ['github:acme/api@main']);
    const finding = await h.finding(unit, { scan_batch_id: 'batch-1', severity: 'medium', file_path: 'app/settings.py' });
    const path = `/api/v1/repositories/${unit.id}/findings/${finding.id}`;
    const started = Date.now();
    for (const status of ['resolved', 'ignored', 'open']) {
      expectStatus(await h.call('PATCH', path, { key: org.key, body: { status } }), 200);
    }

    const first = await readEvents(h, org.key);
    // Resolving by hand writes resolved_manual beside its status_changed.
    assert.deepEqual(
      first.items.map((e: { event_type: string; previous_status: string; new_status: string }) => [e.event_type, e.previous_status, e.new_status]),
      [
        ['status_changed', 'ignored', 'open'],
        ['status_changed', 'resolved', 'ignored'],
        ['resolved_manual', 'open', 'resolved'],
        ['status_changed', 'open', 'resolved'],
      ],
    );
    assert.deepEqual([first.total, first.limit, first.skip, first.has_next], [4, 100, 0, false]);
    const [latest] = first.items;
    const { id, event_timestamp, created_at, ...rest } = latest;
    assert.equal(typeof id, 'string');
    assert.ok(Date.parse(event_timestamp) >= started - 1 && Date.parse(event_timestamp) <= Date.now());
    assert.equal(created_at, event_timestamp);
    assert.deepEqual(rest, {
      organization_id: org.id,
      repository_id: unit.id,
      finding_id: finding.id,
      scan_id: 'batch-1',
      scan_type: 'secrets_scan',
      event_type: 'status_changed',
      previous_status: 'ignored',
      new_status: 'open',
      severity: 'medium',
      check_id: finding.check_id,
      file_path: 'app/settings.py',
      actor_user_id: org.keyId,
      metadata: {},
      comment: null,
    });

    const again = await readEvents(h, org.key);
    assert.deepEqual(again, first, 'a repeated read returns the same events with the same ids');
    const pages = [...ids(await readEvents(h, org.key, { limit: 2 })), ...ids(await readEvents(h, org.key, { limit: 2, skip: 2 }))];
    assert.deepEqual(pages, ids(first), 'paging walks the same ids in the same order');
  });

  describe('filters', () => {
    let org: TestOrg;
    let repoA: string;
    let repoB: string;
    let f1: string;
    // One timeline, newest first: e5 … e1.
    const e: Record<string, FindingEventRow> = {};

    before(async () => {
      org = await h.org('filters');
      const unitA = await h.unit(org, ['github:acme/api@main']);
      const unitB = await h.unit(org, ['github:acme/web@main']);
      [repoA, repoB] = [unitA.id, unitB.id];
      const secret = await h.finding(unitA, { scan_type: 'secrets_scan', severity: 'high' });
      const sast = await h.finding(unitA, { scan_type: 'semgrep_scan', severity: 'low', check_id: 'sql-injection' });
      const other = await h.finding(unitB, { scan_type: 'secrets_scan', severity: 'critical' });
      f1 = secret.id;
      e.e1 = await store({ finding: secret, eventType: 'detected', at: '2024-03-01T09:00:00.000Z' });
      e.e2 = await store({ finding: sast, eventType: 'detected', at: '2024-03-01T12:00:00.000Z' });
      e.e3 = await store({ finding: other, eventType: 'detected', at: '2024-03-02T08:00:00.000Z' });
      e.e4 = await store({
        finding: secret,
        eventType: 'status_changed',
        previousStatus: 'open',
        newStatus: 'ignored',
        at: '2024-03-02T10:00:00.000Z',
      });
      e.e5 = await store({ finding: sast, eventType: 'fix_created', metadata: { fix_id: 'fix-1' }, at: '2024-03-03T10:00:00.000Z' });

      // Another organization's events never show up in this one's feed.
      const stranger = await h.org('stranger');
      const foreignUnit = await h.unit(stranger, ['github:acme/api@main']);
      await store({ finding: await h.finding(foreignUnit), eventType: 'detected', at: '2024-03-02T09:00:00.000Z' });
    });

    const expectFeed = async (query: Record<string, string>, expected: string[]) => {
      const page = await readEvents(h, org.key, query);
      assert.deepEqual(ids(page), expected.map((name) => e[name].id), JSON.stringify(query));
      assert.equal(page.total, expected.length, JSON.stringify(query));
    };

    test('without filters: only the organization’s events, newest first', async () => {
      await expectFeed({}, ['e5', 'e4', 'e3', 'e2', 'e1']);
    });

    test('repository_id, finding_id, scan_type, severity and event_type each narrow the feed', async () => {
      await expectFeed({ repository_id: repoA }, ['e5', 'e4', 'e2', 'e1']);
      await expectFeed({ repository_id: repoB }, ['e3']);
      await expectFeed({ finding_id: f1 }, ['e4', 'e1']);
      await expectFeed({ scan_type: 'semgrep_scan' }, ['e5', 'e2']);
      await expectFeed({ severity: 'critical' }, ['e3']);
      await expectFeed({ severity: 'high' }, ['e4', 'e1']);
      await expectFeed({ event_type: 'status_changed' }, ['e4']);
      await expectFeed({ event_type: 'fix_created' }, ['e5']);
      await expectFeed({ event_type: 'reopened' }, []);
    });

    test('filters combine', async () => {
      await expectFeed({ repository_id: repoA, event_type: 'detected' }, ['e2', 'e1']);
      await expectFeed({ repository_id: repoA, event_type: 'detected', scan_type: 'secrets_scan' }, ['e1']);
      await expectFeed({ scan_type: 'secrets_scan', start: '2024-03-02T00:00:00Z' }, ['e4', 'e3']);
    });

    test('start and end bound the event time, inclusively', async () => {
      await expectFeed({ start: '2024-03-02T00:00:00Z' }, ['e5', 'e4', 'e3']);
      await expectFeed({ end: '2024-03-02T09:00:00Z' }, ['e3', 'e2', 'e1']);
      await expectFeed({ start: '2024-03-02T08:00:00Z', end: '2024-03-02T10:00:00Z' }, ['e4', 'e3']);
      await expectFeed({ start: '2024-03-02T08:00:00.001Z', end: '2024-03-02T09:59:59.999Z' }, []);
    });

    test('a plain date, an offset and a time without offset (UTC, whatever the server’s zone) are accepted', async () => {
      const serverZone = process.env.TZ;
      process.env.TZ = 'America/New_York';
      try {
        await expectFeed({ start: '2024-03-02' }, ['e5', 'e4', 'e3']);
        await expectFeed({ end: '2024-03-02' }, ['e2', 'e1']);
        await expectFeed({ end: '2024-03-02T11:00:00+02:00' }, ['e3', 'e2', 'e1']);
        await expectFeed({ start: '2024-03-02T08:00:00.000000+00:00' }, ['e5', 'e4', 'e3']); // Python's isoformat()
        await expectFeed({ start: '2024-03-02T09:30:00' }, ['e5', 'e4']);
        await expectFeed({ start: '2024-03-02 09:30:00' }, ['e5', 'e4']);
      } finally {
        if (serverZone === undefined) delete process.env.TZ;
        else process.env.TZ = serverZone;
      }
    });

    test('an unparseable start or end is a 422 naming the query parameter', async () => {
      expectValidationError(await h.call('GET', `${FEED}?start=notadate`, { key: org.key }), ['query', 'start'], 'datetime_from_date_parsing');
      expectValidationError(await h.call('GET', `${FEED}?end=2024-13-45`, { key: org.key }), ['query', 'end'], 'datetime_from_date_parsing');
    });
  });

  describe('pagination', () => {
    const TOTAL = 105;
    let org: TestOrg;
    let newestFirst: string[];

    before(async () => {
      org = await h.org('paging');
      const finding = await h.finding(await h.unit(org, ['github:acme/api@main']));
      const stored: string[] = [];
      for (let n = 0; n < TOTAL; n++) {
        const at = new Date(Date.UTC(2024, 4, 1, 0, 0, n)).toISOString();
        stored.push((await store({ finding, eventType: 'detected', at })).id);
      }
      newestFirst = stored.reverse();
    });

    test('returns 100 events by default, newest first', async () => {
      const page = await readEvents(h, org.key);
      assert.deepEqual(ids(page), newestFirst.slice(0, 100));
      assert.deepEqual([page.total, page.limit, page.skip, page.has_next], [TOTAL, 100, 0, true]);
    });

    test('limit takes 1 to 200; 0 and 201 are 422s', async () => {
      assert.deepEqual(ids(await readEvents(h, org.key, { limit: 1 })), newestFirst.slice(0, 1));
      const all = await readEvents(h, org.key, { limit: 200 });
      assert.deepEqual(ids(all), newestFirst);
      assert.equal(all.has_next, false);
      expectValidationError(await h.call('GET', withQuery(FEED, { limit: 0 }), { key: org.key }), ['query', 'limit'], 'greater_than_equal');
      expectValidationError(await h.call('GET', withQuery(FEED, { limit: 201 }), { key: org.key }), ['query', 'limit'], 'less_than_equal');
      expectValidationError(await h.call('GET', withQuery(FEED, { skip: -1 }), { key: org.key }), ['query', 'skip'], 'greater_than_equal');
    });

    test('skip walks the feed without gaps or repeats, and past the end gives an empty page', async () => {
      const walked: string[] = [];
      for (let skip = 0; skip < TOTAL; skip += 40) walked.push(...ids(await readEvents(h, org.key, { limit: 40, skip })));
      assert.deepEqual(walked, newestFirst);
      const tail = await readEvents(h, org.key, { skip: 100 });
      assert.deepEqual(ids(tail), newestFirst.slice(100));
      assert.equal(tail.has_next, false);
      for (const skip of [TOTAL, 1000]) {
        const beyond = await readEvents(h, org.key, { skip });
        assert.deepEqual(beyond, { items: [], total: TOTAL, limit: 100, skip, has_next: false });
      }
    });
  });
});

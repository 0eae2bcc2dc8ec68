import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { periodContaining } from '../../src/core/quota-periods.ts';
import { applyQuotaSettings, consumeCredit, readBalance } from '../../src/core/quotas.ts';
import { createHarness, type Harness } from '../support/api.ts';

describe('quota periods', () => {
  test('monthly, weekly and daily periods are calendar-aligned in UTC', () => {
    const now = new Date('2026-11-20T23:14:00Z'); // a Friday
    assert.deepEqual(periodContaining('monthly', now), { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' });
    assert.deepEqual(periodContaining('weekly', now), { start: '2026-11-16T00:00:00.000Z', end: '2026-11-23T00:00:00.000Z' });
    assert.deepEqual(periodContaining('daily', now), { start: '2026-11-20T00:00:00.000Z', end: '2026-11-21T00:00:00.000Z' });
    assert.deepEqual(periodContaining('monthly', new Date('2026-12-31T23:59:59Z')), {
      start: '2026-12-01T00:00:00.000Z',
      end: '2027-01-01T00:00:00.000Z',
    });
  });
});

describe('quota consumption', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(() => h.close());

  test('50 concurrent scan requests against 10 remaining credits create exactly 10 batches', async () => {
    const org = await h.org('race');
    const unit = await h.unit(org, ['github:race/repo']);
    await applyQuotaSettings(h.database.store.db, org.id, { plans: { sast_scans: 10 } });
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        h.call('POST', `/api/v1/repositories/${unit.id}/scans`, { key: org.key, body: { scan_type: 'secrets_scan' } }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode);
    assert.equal(statuses.filter((s) => s === 202).length, 10);
    assert.equal(statuses.filter((s) => s === 403).length, 40);
    const batches = await h.database.store.db.selectFrom('scan_batches').select('id').where('unit_id', '=', unit.id).execute();
    assert.equal(batches.length, 10);
    const balance = await readBalance(h.database.store.db, org.id);
    assert.deepEqual(balance.counters.sast_scans, { plan: 10, topup: 0, used: 10, remaining: 0 });
  });

  test('usage starts afresh in the next period', async () => {
    const org = await h.org('rollover');
    const db = h.database.store.db;
    await applyQuotaSettings(db, org.id, { plans: { prs: 2 } });
    const november = new Date('2026-11-15T12:00:00Z');
    const december = new Date('2026-12-02T12:00:00Z');
    await consumeCredit(db, org.id, 'prs', november);
    await consumeCredit(db, org.id, 'prs', november);
    await assert.rejects(consumeCredit(db, org.id, 'prs', november), /Quota exhausted/);
    const next = await readBalance(db, org.id, december);
    assert.deepEqual(next.counters.prs, { plan: 2, topup: 0, used: 0, remaining: 2 });
    assert.equal(next.period.start, '2026-12-01T00:00:00.000Z');
    await consumeCredit(db, org.id, 'prs', december);
    assert.equal((await readBalance(db, org.id, november)).counters.prs.used, 2);
  });

  test('an organization can switch to weekly periods', async () => {
    const org = await h.org('weekly');
    await applyQuotaSettings(h.database.store.db, org.id, { period: 'weekly' });
    const balance = (await h.call('GET', '/api/v1/quotas/balance', { key: org.key })).json();
    const days = (Date.parse(balance.period_end) - Date.parse(balance.period_start)) / 86_400_000;
    assert.equal(days, 7);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BATCH_STATUS } from '../../src/core/states/batch-status.ts';
import { FINDING_STATUS } from '../../src/core/states/finding-status.ts';
import { FIX_STATUS } from '../../src/core/states/fix-status.ts';
import type { StatusMachine } from '../../src/core/states/machine.ts';
import { SCAN_STATUS } from '../../src/core/states/scan-status.ts';
import { moveFix } from '../../src/store/fixes.ts';
import { moveBatch, moveScan } from '../../src/store/scan-batches.ts';
import { createHarness, type Harness } from '../support/api.ts';

// Every status machine, every (from, to) pair, against the real database: the guarded write applies
// exactly when the transition table allows the move, and the database itself refuses unknown statuses.

const pairs = <S extends string>(machine: StatusMachine<S>) => machine.statuses.flatMap((from) => machine.statuses.map((to) => ({ from, to })));

describe('status machines', () => {
  test('finished batches, scans and fixes can never move, and every status can be reached from some other', () => {
    for (const machine of [BATCH_STATUS, SCAN_STATUS, FIX_STATUS] as StatusMachine<string>[]) {
      for (const { from, to } of pairs(machine)) {
        if (machine.isTerminal(from)) assert.equal(machine.canMove(from, to), false, `${machine.name}: ${from} → ${to}`);
      }
    }
    for (const machine of [BATCH_STATUS, SCAN_STATUS, FIX_STATUS, FINDING_STATUS] as StatusMachine<string>[]) {
      for (const status of machine.statuses.slice(1)) assert.ok(machine.sourcesOf(status).length > 0, `${machine.name}: ${status} is reachable`);
    }
    assert.deepEqual([...BATCH_STATUS.terminal], ['completed', 'partial_failure', 'failed']);
    assert.deepEqual([...SCAN_STATUS.terminal], ['completed', 'failed']);
    assert.deepEqual([...FIX_STATUS.terminal], ['failed', 'cancelled']);
    assert.deepEqual(FINDING_STATUS.terminal, [], 'triage can always move a finding');
    assert.equal(BATCH_STATUS.canMove('queued', 'completed'), false, 'a batch cannot skip its scans');
    assert.equal(FIX_STATUS.canMove('pending', 'completed'), false, 'a fix cannot complete without running');
    assert.equal(FINDING_STATUS.canMove('open', 'open'), false);
  });
});

describe('guarded status writes and database constraints', () => {
  let h: Harness;
  let batchId: string;
  let scanId: string;
  let fixId: string;
  let findingId: string;

  before(async () => {
    h = await createHarness({ agentConfigured: true });
    const org = await h.org('states');
    const unit = await h.unit(org, ['github:acme/states']);
    const base = `/api/v1/repositories/${unit.id}`;
    batchId = (await h.call('POST', `${base}/scans`, { body: { scan_type: 'secrets_scan' } })).json().batch_id;
    findingId = (await h.finding(unit)).id;
    const fix = await h.call('POST', `${base}/fixes`, {
      body: { finding_ids: [findingId], title: 't', instructions: 'i', source_repo: 'acme/states' },
    });
    fixId = fix.json().id;
    scanId = 'scan-under-test';
    await h.database.store.db
      .insertInto('scans')
      .values({
        id: scanId,
        batch_id: batchId,
        org_id: org.id,
        unit_id: unit.id,
        source_repo_id: unit.sources[0]!.id,
        repository: 'acme/states',
        branch: 'main',
        status: 'pending',
        status_reason: null,
        commit_sha: null,
        findings_count: null,
        assessed: 0,
        created_at: new Date().toISOString(),
        started_at: null,
        completed_at: null,
      })
      .execute();
  });
  after(() => h.close());

  const cases = [
    {
      machine: BATCH_STATUS as StatusMachine<string>,
      table: 'scan_batches' as const,
      id: () => batchId,
      move: (to: string) => moveBatch(h.database.store.db, batchId, to as never),
    },
    {
      machine: SCAN_STATUS as StatusMachine<string>,
      table: 'scans' as const,
      id: () => scanId,
      move: (to: string) => moveScan(h.database.store.db, scanId, to as never),
    },
    {
      machine: FIX_STATUS as StatusMachine<string>,
      table: 'fixes' as const,
      id: () => fixId,
      move: (to: string) => moveFix(h.database.store.db, fixId, to as never),
    },
  ];

  for (const { machine, table, id, move } of cases) {
    test(`${machine.name}: every (from, to) pair applies exactly when the transition table allows it`, async () => {
      const db = h.database.store.db;
      const statusOf = async () => (await db.selectFrom(table).select('status').where('id', '=', id()).executeTakeFirstOrThrow()).status;
      for (const { from, to } of pairs(machine)) {
        await db.updateTable(table).set({ status: from as never }).where('id', '=', id()).execute();
        const applied = await move(to);
        const allowed = machine.canMove(from, to);
        assert.equal(applied, allowed, `${from} → ${to}`);
        assert.equal(await statusOf(), allowed ? to : from, `${from} → ${to} leaves the row ${allowed ? to : from}`);
      }
    });
  }

  for (const [table, machine] of [
    ['scan_batches', BATCH_STATUS],
    ['scans', SCAN_STATUS],
    ['fixes', FIX_STATUS],
    ['findings', FINDING_STATUS],
  ] as const) {
    test(`${table}: the database accepts every status of its machine and refuses any other`, async () => {
      const db = h.database.store.db;
      const rowId = { scan_batches: batchId, scans: scanId, fixes: fixId, findings: findingId }[table];
      for (const status of machine.statuses) {
        await db.updateTable(table).set({ status: status as never }).where('id', '=', rowId).execute();
      }
      await assert.rejects(db.updateTable(table).set({ status: 'finished' as never }).where('id', '=', rowId).execute());
      await assert.rejects(db.updateTable(table).set({ status: 'COMPLETED' as never }).where('id', '=', rowId).execute());
      const row = await db.selectFrom(table).select('status').where('id', '=', rowId).executeTakeFirstOrThrow();
      assert.equal(row.status, machine.statuses.at(-1), 'the refused write changed nothing');
    });
  }

  test('an insert with an unknown status is refused too', async () => {
    const db = h.database.store.db;
    const batch = await db.selectFrom('scan_batches').selectAll().where('id', '=', batchId).executeTakeFirstOrThrow();
    await assert.rejects(db.insertInto('scan_batches').values({ ...batch, id: 'another-batch', status: 'done' as never }).execute());
    assert.equal((await db.selectFrom('scan_batches').select('id').where('id', '=', 'another-batch').execute()).length, 0);
  });
});

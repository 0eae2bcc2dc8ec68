import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { BATCH_STATUS } from '../../src/core/states/batch-status.ts';
import { DEVICE_AUTHORIZATION_STATUS } from '../../src/core/states/device-authorization-status.ts';
import { FINDING_STATUSES, SCAN_VERDICT, TRIAGE, afterScan, findingStatus, stateOf, type FindingState } from '../../src/core/states/finding-state.ts';
import { FIX_STATUS } from '../../src/core/states/fix-status.ts';
import { JOB_STATE } from '../../src/core/states/job-state.ts';
import type { StatusMachine } from '../../src/core/states/machine.ts';
import { SCAN_STATUS } from '../../src/core/states/scan-status.ts';
import { moveDeviceAuthorization } from '../../src/store/accounts.ts';
import { writeFindingState } from '../../src/store/findings.ts';
import { moveFix } from '../../src/store/fixes.ts';
import { insertJobOnce, settleJobAttempt } from '../../src/store/jobs.ts';
import { moveBatch, moveScan } from '../../src/store/scan-batches.ts';
import { createHarness, type Harness } from '../support/api.ts';

// Every status machine, every (from, to) pair, against the real database: the guarded write applies
// exactly when the transition table allows the move, and the database itself refuses unknown statuses.

const pairs = <S extends string>(machine: StatusMachine<S>) => machine.statuses.flatMap((from) => machine.statuses.map((to) => ({ from, to })));

describe('status machines', () => {
  test('finished batches, scans, fixes, device logins and jobs can never move, and every status can be reached from some other', () => {
    const lifecycles = [BATCH_STATUS, SCAN_STATUS, FIX_STATUS, DEVICE_AUTHORIZATION_STATUS, JOB_STATE] as StatusMachine<string>[];
    for (const machine of lifecycles) {
      for (const { from, to } of pairs(machine)) {
        if (machine.isTerminal(from)) assert.equal(machine.canMove(from, to), false, `${machine.name}: ${from} → ${to}`);
      }
    }
    for (const machine of [...lifecycles, SCAN_VERDICT, TRIAGE]) {
      for (const status of machine.statuses.slice(1)) assert.ok(machine.sourcesOf(status).length > 0, `${machine.name}: ${status} is reachable`);
    }
    assert.deepEqual([...BATCH_STATUS.terminal], ['completed', 'partial_failure', 'failed']);
    assert.deepEqual([...SCAN_STATUS.terminal], ['completed', 'failed']);
    assert.deepEqual([...FIX_STATUS.terminal], ['failed', 'cancelled']);
    assert.deepEqual([...DEVICE_AUTHORIZATION_STATUS.terminal], ['denied', 'consumed']);
    assert.deepEqual([...JOB_STATE.terminal], ['done', 'dead']);
    assert.equal(DEVICE_AUTHORIZATION_STATUS.canMove('pending', 'consumed'), false, 'a device collects a key only once approved');
    assert.deepEqual(TRIAGE.terminal, [], 'a person can always change a decision');
    assert.deepEqual(SCAN_VERDICT.terminal, [], 'a finding can always come back or go');
    assert.equal(BATCH_STATUS.canMove('queued', 'completed'), false, 'a batch cannot skip its scans');
    assert.equal(FIX_STATUS.canMove('pending', 'completed'), false, 'a fix cannot complete without running');
    assert.equal(TRIAGE.canMove('open', 'open'), false);
  });
});

const findingStates: FindingState[] = SCAN_VERDICT.statuses.flatMap((verdict) => TRIAGE.statuses.map((triage) => ({ verdict, triage })));

describe('finding state', () => {
  test('a rescan never loses a decision: the only one it changes is resolved by hand, which reopens when seen again', () => {
    for (const state of findingStates) {
      assert.deepEqual(afterScan(state, false), { verdict: 'gone', triage: state.triage }, `${state.verdict}/${state.triage} unseen`);
      const seen = afterScan(state, true);
      assert.equal(seen.verdict, 'present');
      assert.equal(seen.triage, state.triage === 'resolved' ? 'open' : state.triage, `${state.verdict}/${state.triage} seen`);
    }
  });

  test('the wire status: ignored and false positive stand over any verdict, gone or resolved by hand is resolved', () => {
    const expected: Record<string, string> = {
      'present/open': 'open',
      'present/ignored': 'ignored',
      'present/false_positive': 'false_positive',
      'present/needs_manual_review': 'needs_manual_review',
      'present/resolved': 'resolved',
      'gone/open': 'resolved',
      'gone/ignored': 'ignored',
      'gone/false_positive': 'false_positive',
      'gone/needs_manual_review': 'resolved',
      'gone/resolved': 'resolved',
    };
    for (const state of findingStates) assert.equal(findingStatus(state), expected[`${state.verdict}/${state.triage}`]);
    assert.deepEqual(new Set(findingStates.map(findingStatus)), new Set(FINDING_STATUSES), 'every wire status is reachable');
  });
});

describe('guarded status writes and database constraints', () => {
  let h: Harness;
  let batchId: string;
  let scanId: string;
  let fixId: string;
  let findingId: string;
  const deviceId = 'device-under-test';
  const jobId = 'job-under-test';

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
    const now = new Date().toISOString();
    await h.database.store.db
      .insertInto('device_authorizations')
      .values({
        id: deviceId,
        device_code_hash: 'hash-under-test',
        user_code: 'BCDF-GHJK',
        client_name: null,
        status: 'pending',
        requested_at: now,
        expires_at: now,
        interval_seconds: 5,
        last_polled_at: null,
        approved_by_user_id: null,
        org_id: null,
        device_label: null,
        requested_from: null,
      })
      .execute();
    await insertJobOnce(h.database.store.db, { id: jobId, kind: 'states-test', key: jobId, max_attempts: 3, group_key: null }, now);
  });
  after(() => h.close());

  const job = () => h.database.store.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();

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
    {
      machine: DEVICE_AUTHORIZATION_STATUS as StatusMachine<string>,
      table: 'device_authorizations' as const,
      id: () => deviceId,
      move: (to: string) => moveDeviceAuthorization(h.database.store.db, deviceId, to as never),
    },
    {
      machine: JOB_STATE as StatusMachine<string>,
      table: 'jobs' as const,
      column: 'state' as const,
      id: () => jobId,
      move: async (to: string) => settleJobAttempt(h.database.store.db, await job(), to as never, {}, new Date().toISOString()),
    },
  ];

  for (const { machine, table, id, move, column = 'status' } of cases as (typeof cases[number] & { column?: 'state' })[]) {
    test(`${machine.name}: every (from, to) pair applies exactly when the transition table allows it`, async () => {
      const db = h.database.store.db as Kysely<any>;
      const statusOf = async () => (await db.selectFrom(table).select(column).where('id', '=', id()).executeTakeFirstOrThrow())[column];
      for (const { from, to } of pairs(machine)) {
        await db.updateTable(table).set({ [column]: from }).where('id', '=', id()).execute();
        const applied = await move(to);
        const allowed = machine.canMove(from, to);
        assert.equal(applied, allowed, `${from} → ${to}`);
        assert.equal(await statusOf(), allowed ? to : from, `${from} → ${to} leaves the row ${allowed ? to : from}`);
      }
    });
  }

  test('finding: every (from, to) pair of states applies exactly when both tables allow it, and status follows', async () => {
    const db = h.database.store.db;
    const read = () => db.selectFrom('findings').selectAll().where('id', '=', findingId).executeTakeFirstOrThrow();
    for (const from of findingStates) {
      for (const to of findingStates) {
        await db.updateTable('findings').set({ scan_verdict: from.verdict, triage: from.triage, status: findingStatus(from) }).where('id', '=', findingId).execute();
        const written = await writeFindingState(db, { ...(await read()), from }, to, new Date().toISOString());
        const stays = from.verdict === to.verdict && from.triage === to.triage;
        const allowed =
          !stays && (from.verdict === to.verdict || SCAN_VERDICT.canMove(from.verdict, to.verdict)) && (from.triage === to.triage || TRIAGE.canMove(from.triage, to.triage));
        const name = `${from.verdict}/${from.triage} → ${to.verdict}/${to.triage}`;
        assert.equal(written !== null, allowed, name);
        const row = await read();
        assert.deepEqual(stateOf(row), allowed ? to : from, name);
        assert.equal(row.status, findingStatus(stateOf(row)), name);
      }
    }
    const row = await read();
    const stale = { verdict: row.scan_verdict === 'gone' ? 'present' : 'gone', triage: row.triage } as const;
    assert.equal(await writeFindingState(db, { ...row, from: stale }, { verdict: row.scan_verdict, triage: 'ignored' }, new Date().toISOString()), null, 'a state read before another write changed it writes nothing');
  });

  for (const [table, machine, column] of [
    ['scan_batches', BATCH_STATUS, 'status'],
    ['scans', SCAN_STATUS, 'status'],
    ['fixes', FIX_STATUS, 'status'],
    ['findings', { statuses: FINDING_STATUSES }, 'status'],
    ['device_authorizations', DEVICE_AUTHORIZATION_STATUS, 'status'],
    ['jobs', JOB_STATE, 'state'],
  ] as const) {
    test(`${table}: the database accepts every ${column} of its machine and refuses any other`, async () => {
      const db = h.database.store.db as Kysely<any>;
      const rowId = { scan_batches: batchId, scans: scanId, fixes: fixId, findings: findingId, device_authorizations: deviceId, jobs: jobId }[table];
      for (const status of machine.statuses) {
        await db.updateTable(table).set({ [column]: status }).where('id', '=', rowId).execute();
      }
      await assert.rejects(db.updateTable(table).set({ [column]: 'finished' }).where('id', '=', rowId).execute());
      await assert.rejects(db.updateTable(table).set({ [column]: 'COMPLETED' }).where('id', '=', rowId).execute());
      const row = await db.selectFrom(table).select(column).where('id', '=', rowId).executeTakeFirstOrThrow();
      assert.equal(row[column], machine.statuses.at(-1), 'the refused write changed nothing');
    });
  }

  for (const [column, machine] of [
    ['scan_verdict', SCAN_VERDICT],
    ['triage', TRIAGE],
  ] as const) {
    test(`findings.${column}: the database accepts every value of its machine and refuses any other`, async () => {
      const db = h.database.store.db;
      for (const value of machine.statuses) await db.updateTable('findings').set({ [column]: value }).where('id', '=', findingId).execute();
      await assert.rejects(db.updateTable('findings').set({ [column]: 'unknown' as never }).where('id', '=', findingId).execute());
      const row = await db.selectFrom('findings').select(column).where('id', '=', findingId).executeTakeFirstOrThrow();
      assert.equal(row[column], machine.statuses.at(-1), 'the refused write changed nothing');
    });
  }

  test('an insert with an unknown status is refused too', async () => {
    const db = h.database.store.db;
    const batch = await db.selectFrom('scan_batches').selectAll().where('id', '=', batchId).executeTakeFirstOrThrow();
    await assert.rejects(db.insertInto('scan_batches').values({ ...batch, id: 'another-batch', status: 'done' as never }).execute());
    assert.equal((await db.selectFrom('scan_batches').select('id').where('id', '=', 'another-batch').execute()).length, 0);
  });
});

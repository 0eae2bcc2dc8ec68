import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import fs from 'node:fs';
import type { Unit } from '../../src/core/units.ts';
import { newId } from '../../src/ids.ts';
import { listFindings } from '../../src/store/findings.ts';
import { expectStatus, FINISHED_BATCH, pollUntil, scanRepository } from '../support/helpers.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { findingRow } from '../support/finding-rows.ts';
import { TestRepo } from '../support/git-repo.ts';

// A problem two scan types find in one unit is one finding: one id, one triage, one history. The deep
// scan runs the static rules too, so every static finding it reports is one the SAST scan may have
// stored already.

const SSRF = 'python.lang.ssrf.outbound-request';

const PREVIEW = `import requests
from flask import Flask, request

app = Flask(__name__)


@app.route("/preview")
def preview():
    url = request.args.get("url")
    return requests.get(url, timeout=5).text
`;

const SAFE = `from flask import Flask

app = Flask(__name__)


@app.route("/preview")
def preview():
    return "no preview"
`;

describe('one finding per problem across scan types', () => {
  let h: Harness;
  let org: TestOrg;
  const repos: TestRepo[] = [];
  let counter = 0;

  before(async () => {
    h = await createHarness({ scanning: true });
    org = await h.org('one-finding');
  });
  after(async () => {
    await h.close();
    for (const repo of repos) repo.remove();
  });

  async function scanned(files: Record<string, string>) {
    const repo = TestRepo.create();
    repos.push(repo);
    repo.commit(files, 'initial');
    const unit = await h.unit(org, [`github:acme/one-finding-${++counter}@main`], `one-finding-${counter}`, [repo.url]);
    return { repo, unit };
  }

  async function scan(unit: Unit, scanType: string) {
    const { progress } = await scanRepository(h, unit.id, scanType);
    assert.equal(progress.status, 'completed', progress.error_message ?? '');
  }

  async function list(unit: Unit, query = '') {
    return expectStatus(await h.call('GET', `/api/v1/repositories/${unit.id}/findings?limit=200${query}`), 200) as { items: any[]; total: number };
  }

  async function waitForBatch(url: string) {
    const progress = await pollUntil(h, url, (p) => FINISHED_BATCH.includes(p.status));
    assert.equal(progress.status, 'completed', progress.error_message ?? '');
  }

  const ofRule = (items: any[]) => items.filter((f) => f.check_id === SSRF);

  test('the deep scan finds the SAST finding again: one finding, both types, one triage and one history', async () => {
    const { unit } = await scanned({ 'app.py': PREVIEW });
    await scan(unit, 'semgrep_scan');
    const [first] = ofRule((await list(unit)).items);
    assert.ok(first, 'the SAST scan finds the SSRF');
    assert.deepEqual(first.detected_by, ['semgrep_scan']);
    const decided = expectStatus(
      await h.call('PATCH', `/api/v1/repositories/${unit.id}/findings/${first.id}`, { body: { status: 'false_positive', comment: 'allow-listed upstream' } }),
      200,
    );
    assert.equal(decided.status, 'false_positive');

    await scan(unit, 'deep_ai_scan');
    const all = await list(unit);
    const same = ofRule(all.items);
    assert.equal(same.length, 1, JSON.stringify(same));
    assert.equal(same[0].id, first.id);
    assert.equal(same[0].scan_type, 'semgrep_scan', 'the wire scan_type stays the first type that found it');
    assert.deepEqual(same[0].detected_by, ['semgrep_scan', 'deep_ai_scan']);
    assert.equal(same[0].status, 'false_positive', 'the decision holds for the deep scan too');
    assert.equal(new Set(all.items.map((f) => f.id)).size, all.items.length);
    assert.equal(all.total, all.items.length);

    // A filter by either scan type matches it, and the totals count it once under each.
    for (const type of ['semgrep_scan', 'deep_ai_scan']) {
      const filtered = await list(unit, `&scan_type=${type}`);
      assert.ok(filtered.items.some((f) => f.id === first.id), `scan_type=${type}`);
      assert.equal(filtered.total, filtered.items.length, `scan_type=${type} total`);
      assert.ok(filtered.items.every((f) => f.detected_by.includes(type)));
    }
    const semgrepOnly = await list(unit, '&scan_type=semgrep_scan');
    const deepOnly = await list(unit, '&scan_type=deep_ai_scan');
    assert.equal(semgrepOnly.total + deepOnly.total - all.total, all.items.filter((f) => f.detected_by.length === 2).length);

    const events = expectStatus(await h.call('GET', `/api/v1/finding-events?finding_id=${first.id}&limit=50`, { key: org.key }), 200).items as any[];
    assert.deepEqual(events.map((e) => e.event_type).sort(), ['detected', 'status_changed']);
  });

  test('a finding two types detected resolves only when neither still sees it', async () => {
    const { repo, unit } = await scanned({ 'app.py': PREVIEW });
    await scan(unit, 'semgrep_scan');
    await scan(unit, 'deep_ai_scan');
    const [finding] = ofRule((await list(unit)).items);
    assert.deepEqual(finding.detected_by, ['semgrep_scan', 'deep_ai_scan']);

    repo.commit({ 'app.py': SAFE }, 'drop the preview');
    await scan(unit, 'semgrep_scan');
    const stillSeen = ofRule((await list(unit)).items);
    assert.equal(stillSeen[0].status, 'open', "the deep scan's last sighting still stands");

    await scan(unit, 'deep_ai_scan');
    const gone = ofRule((await list(unit)).items);
    assert.equal(gone.length, 1);
    assert.equal(gone[0].id, finding.id);
    assert.equal(gone[0].status, 'resolved');
    const events = expectStatus(await h.call('GET', `/api/v1/finding-events?finding_id=${finding.id}&limit=50`, { key: org.key }), 200).items as any[];
    assert.deepEqual(events.map((e) => e.event_type).sort(), ['detected', 'resolved_auto']);

    // Seen again by one type: open again, and that type sees it.
    repo.commit({ 'app.py': PREVIEW }, 'bring it back');
    await scan(unit, 'deep_ai_scan');
    const back = ofRule((await list(unit)).items);
    assert.equal(back.length, 1);
    assert.equal(back[0].id, finding.id);
    assert.equal(back[0].status, 'open');
  });

  test('two scan types scanning one source at once store the problem once', async () => {
    const { unit } = await scanned({ 'app.py': PREVIEW });
    await Promise.all([scan(unit, 'semgrep_scan'), scan(unit, 'deep_ai_scan')]);
    const all = (await list(unit)).items;
    const same = ofRule(all);
    assert.equal(same.length, 1, JSON.stringify(same));
    assert.deepEqual([...same[0].detected_by].sort(), ['deep_ai_scan', 'semgrep_scan']);
    const static_ = all.filter((f) => f.detected_by.includes('semgrep_scan'));
    assert.equal(new Set(static_.map((f) => `${f.check_id}|${f.file_path}|${f.start_line}`)).size, static_.length);
  });

  test("a decision on a repository's finding reaches the same finding in an application that holds the repository", async () => {
    const repo = TestRepo.create();
    repos.push(repo);
    repo.commit({ 'app.py': PREVIEW }, 'initial');
    const other = TestRepo.create();
    repos.push(other);
    other.commit({ 'README.md': 'docs' }, 'initial');
    const n = ++counter;
    const repository = await h.unit(org, [`github:acme/shared-${n}@main`], `shared-${n}`, [repo.url]);
    const application = await h.unit(org, [`github:acme/shared-${n}@main`, `github:acme/docs-${n}@main`], `app-${n}`, [repo.url, other.url]);
    await scan(repository, 'semgrep_scan');
    const created = await h.call('POST', `/api/v1/applications/${application.id}/scans`, { body: { scan_type: 'semgrep_scan' } });
    const batchId: string = expectStatus(created, 202).batch_id;
    await waitForBatch(`/api/v1/applications/${application.id}/scans/${batchId}/progress`);
    const appFindings = async () =>
      ofRule(expectStatus(await h.call('GET', `/api/v1/applications/${application.id}/findings?limit=200`), 200).items);
    const [twin] = await appFindings();
    const [mine] = ofRule((await list(repository)).items);
    assert.ok(twin && mine);
    assert.notEqual(twin.id, mine.id);

    expectStatus(
      await h.call('PATCH', `/api/v1/repositories/${repository.id}/findings/${mine.id}`, { body: { status: 'ignored', comment: 'test fixture' } }),
      200,
    );
    const [carried] = await appFindings();
    assert.equal(carried.id, twin.id);
    assert.equal(carried.status, 'ignored');
    const events = expectStatus(await h.call('GET', `/api/v1/finding-events?finding_id=${twin.id}&limit=50`, { key: org.key }), 200).items as any[];
    const changed = events.find((e) => e.event_type === 'status_changed');
    assert.ok(changed, JSON.stringify(events));
    assert.equal(changed.new_status, 'ignored');
    assert.equal(changed.comment, 'test fixture');
    assert.deepEqual(changed.metadata.carried_from, { unit_id: repository.id, finding_id: mine.id });
    // The repository's own finding has one status change: the carried one writes nothing back.
    const own = expectStatus(await h.call('GET', `/api/v1/finding-events?finding_id=${mine.id}&limit=50`, { key: org.key }), 200).items as any[];
    assert.equal(own.filter((e) => e.event_type === 'status_changed').length, 1);

    // An application scanned after the decision finds the finding with it already.
    const later = await h.unit(org, [`github:acme/shared-${n}@main`, `github:acme/docs-${n}@main`], `later-${n}`, [repo.url, other.url]);
    const started = await h.call('POST', `/api/v1/applications/${later.id}/scans`, { body: { scan_type: 'semgrep_scan' } });
    await waitForBatch(`/api/v1/applications/${later.id}/scans/${expectStatus(started, 202).batch_id}/progress`);
    const [inherited] = ofRule(expectStatus(await h.call('GET', `/api/v1/applications/${later.id}/findings?limit=200`), 200).items);
    assert.equal(inherited.status, 'ignored');
    const history = expectStatus(await h.call('GET', `/api/v1/finding-events?finding_id=${inherited.id}&limit=50`, { key: org.key }), 200).items as any[];
    const carriedEvent = history.find((e) => e.event_type === 'status_changed');
    // From either unit that holds the decision.
    assert.ok(
      [JSON.stringify({ unit_id: repository.id, finding_id: mine.id }), JSON.stringify({ unit_id: application.id, finding_id: twin.id })].includes(
        JSON.stringify(carriedEvent?.metadata.carried_from),
      ),
      JSON.stringify(history),
    );
    assert.ok(history.some((e) => e.event_type === 'detected'));
  });
});

describe('migration 023 merges the findings stored once per scan type', () => {
  let h: Harness;
  let org: TestOrg;

  const MIGRATIONS_DIR = new URL('../../src/store/migrations/', import.meta.url);
  async function migrator() {
    const names = fs.readdirSync(MIGRATIONS_DIR).flatMap((file) => /^(\d{3}_\w+)\.ts$/.exec(file)?.[1] ?? []).sort();
    const modules: Migration[] = await Promise.all(names.map((name) => import(new URL(`${name}.ts`, MIGRATIONS_DIR).href)));
    const db = h.database.store.db;
    const migrationTableSchema =
      h.database.store.dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
    return new Migrator({ db, migrationTableSchema, provider: { getMigrations: async () => Object.fromEntries(names.map((n, i) => [n, modules[i]!])) } });
  }

  before(async () => {
    h = await createHarness();
    org = await h.org('merge');
  });
  after(() => h.close());

  test('the oldest is kept with both types, the decision a person made, and every event and fix link', async () => {
    const unit = await h.unit(org, ['github:acme/merge@main'], 'merge');
    const db = h.database.store.db;
    const down = await (await migrator()).migrateTo('022_device_and_job_states');
    assert.equal(down.error, undefined, String(down.error));

    const place = { check_id: SSRF, file_path: 'app.py', start_line: 9, end_line: 9, match_hash: 'h-ssrf', fingerprint: 'k-ssrf' };
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const semgrep = findingRow(unit, { ...place, scan_type: 'semgrep_scan', scan_id: 's1', created_at: at(1), first_detected_at: at(1), last_detected_at: at(1) });
    const deep = findingRow(unit, {
      ...place,
      scan_type: 'deep_ai_scan',
      scan_id: 'd1',
      triage: 'false_positive',
      status: 'false_positive',
      created_at: at(2),
      first_detected_at: at(2),
      last_detected_at: at(5),
    });
    // A lone finding and the same rule on another line stay as they are.
    const lone = findingRow(unit, { ...place, scan_type: 'deep_ai_scan', start_line: 30, match_hash: 'h-other', fingerprint: 'k-other', created_at: at(3) });
    const old = ({ detected_by: _d, seen_by: _s, ...row }: typeof semgrep) => row;
    // The table as migration 022 left it, without the columns 023 adds.
    await (db as Kysely<any>).insertInto('findings').values([old(semgrep), old(deep), old(lone)]).execute();
    const event = (findingId: string, eventType: string, s: number) => ({
      id: newId(),
      org_id: org.id,
      unit_id: unit.id,
      finding_id: findingId,
      event_type: eventType,
      previous_status: null,
      new_status: eventType === 'status_changed' ? 'false_positive' : 'open',
      scan_id: null,
      scan_type: null,
      severity: 'high',
      check_id: SSRF,
      file_path: 'app.py',
      actor_user_id: null,
      metadata: '{}',
      comment: null,
      event_timestamp: at(s),
      created_at: at(s),
    });
    await db
      .insertInto('finding_events')
      .values([event(semgrep.id, 'detected', 1), event(deep.id, 'detected', 2), event(deep.id, 'status_changed', 4)])
      .execute();

    // A fix of both copies, and one of the deep copy alone: each ends up linked to the kept finding once.
    const fix = (id: string) => ({ id, org_id: org.id, unit_id: unit.id, title: 'fix', instructions: '', status: 'completed', created_at: at(6), updated_at: at(6) });
    const [both, deepOnly] = [newId(), newId()];
    await (db as Kysely<any>).insertInto('fixes').values([fix(both), fix(deepOnly)]).execute();
    await db
      .insertInto('fix_findings')
      .values([
        { fix_id: both, finding_id: semgrep.id, position: 0 },
        { fix_id: both, finding_id: deep.id, position: 1 },
        { fix_id: deepOnly, finding_id: deep.id, position: 0 },
      ])
      .execute();

    const up = await (await migrator()).migrateToLatest();
    assert.equal(up.error, undefined, String(up.error));

    const rows = await db.selectFrom('findings').selectAll().where('unit_id', '=', unit.id).orderBy('created_at').execute();
    assert.deepEqual(rows.map((r) => r.id), [semgrep.id, lone.id]);
    const [kept] = rows;
    assert.equal(kept.scan_type, 'semgrep_scan');
    assert.deepEqual(JSON.parse(kept.detected_by), ['semgrep_scan', 'deep_ai_scan']);
    assert.deepEqual(JSON.parse(kept.seen_by), { semgrep_scan: 's1', deep_ai_scan: 'd1' });
    assert.equal(kept.triage, 'false_positive', 'a decision wins over open');
    assert.equal(kept.status, 'false_positive');
    assert.equal(kept.last_detected_at, at(5));
    assert.deepEqual(JSON.parse(rows[1].detected_by), ['deep_ai_scan']);

    const events = await db.selectFrom('finding_events').select(['finding_id', 'event_type']).where('unit_id', '=', unit.id).execute();
    assert.equal(events.length, 3);
    assert.ok(events.every((e) => e.finding_id === semgrep.id));

    const links = await db.selectFrom('fix_findings').select(['fix_id', 'finding_id']).where('fix_id', 'in', [both, deepOnly]).orderBy('fix_id').execute();
    assert.deepEqual(
      links.map((l) => [l.fix_id, l.finding_id]),
      [[both, semgrep.id], [deepOnly, semgrep.id]].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
    );

    // The counters agree with the rows, by scan type too.
    const total = (scanType?: string) => listFindings(db, unit.id, { limit: 50, skip: 0, scanType });
    assert.equal((await total()).total, 2);
    assert.equal((await total('semgrep_scan')).total, 1);
    assert.deepEqual((await total('deep_ai_scan')).items.map((f) => f.id).sort(), [semgrep.id, lone.id].sort());
    assert.equal((await total('deep_ai_scan')).total, 2);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { KyselyPlugin, RootOperationNode } from 'kysely';
import { revokeApiKey } from '../../src/core/api-keys.ts';
import type { Unit } from '../../src/core/units.ts';
import { buildApp } from '../../src/http/app.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { VersionedCache } from '../../src/store/versioned-cache.ts';
import { expectStatus, waitFor } from '../support/helpers.ts';
import { findingRow } from '../support/finding-rows.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { TEST_DATABASE } from '../support/store.ts';

/** Counts the statements an app sends that read findings. */
function findingReads() {
  const seen = { count: 0 };
  const plugin: KyselyPlugin = {
    transformQuery({ node }: { node: RootOperationNode }) {
      if (JSON.stringify(node).includes('"findings"')) seen.count++;
      return node;
    },
    async transformResult({ result }) {
      return result;
    },
  };
  return { plugin, seen };
}

/**
 * Asks until `check` holds: on PostgreSQL another process's commit reaches this one as a notice, a moment
 * later. Fails when it never holds, as a cache serving stale answers would.
 */
const eventually = (check: () => Promise<boolean>, what: string) => waitFor(what, 5, async () => ((await check()) ? true : undefined));

describe('answers kept until the data changes', () => {
  let h: Harness;
  let org: TestOrg;
  let unit: Unit;
  let counted: FastifyInstance;
  let reads: ReturnType<typeof findingReads>;
  /** The same database opened a second time: another server process, as far as this one can tell. */
  let elsewhere: Store;

  const get = async (url: string, key = org.key) => {
    const response = await counted.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
    return { status: response.statusCode, body: response.body };
  };
  const findingsUrl = () => `/api/v1/repositories/${unit.id}/findings?limit=50`;
  /**
   * Reads `url` until a read is answered without a findings query (on PostgreSQL, notices of the test's
   * own setup writes may still arrive and move the epoch); the two last answers.
   */
  const keptAnswer = async (url: string) => {
    let answers: string[] = [];
    await eventually(async () => {
      const first = await get(url);
      const before = reads.seen.count;
      const again = await get(url);
      answers = [first.body, again.body];
      return reads.seen.count === before;
    }, `${url} answered without the database`);
    return answers;
  };

  before(async () => {
    h = await createHarness();
    org = await h.org('cache');
    unit = await h.unit(org, ['github:acme/cache@main']);
    await h.finding(unit, { status: 'open' });
    reads = findingReads();
    counted = await buildApp({ store: { ...h.database.store, db: h.database.store.db.withPlugin(reads.plugin) } });
    elsewhere = openStore({ databaseUrl: h.database.env.DATABASE_URL ?? null, dataDir: h.database.dataDir });
    // On PostgreSQL nothing is kept until the app listens for changes.
    await keptAnswer(findingsUrl());
  });
  after(async () => {
    await counted.close();
    await elsewhere.close();
    await h.close();
  });

  test('a list asked again is the same bytes without reading the database; a status change shows on the next read', async () => {
    const [first, again] = await keptAnswer(findingsUrl());
    assert.equal(again, first);
    const finding = JSON.parse(first).items[0];
    const patched = await counted.inject({
      method: 'PATCH',
      url: `/api/v1/repositories/${unit.id}/findings/${finding.id}`,
      headers: { authorization: `Bearer ${org.key}` },
      payload: { status: 'ignored' },
    });
    assert.equal(patched.statusCode, 200);
    const after = JSON.parse((await get(findingsUrl())).body);
    assert.equal(after.items.find((f: { id: string }) => f.id === finding.id).status, 'ignored');
  });

  test('a finding another process commits is listed', async () => {
    const total = JSON.parse((await get(findingsUrl())).body).total as number;
    await elsewhere.db.insertInto('findings').values(findingRow(unit)).execute();
    await eventually(async () => JSON.parse((await get(findingsUrl())).body).total === total + 1, 'the new finding');
  });

  test('a key another process revokes is refused', async () => {
    const { key, id } = await h.key(org, ['read'], 'revoked elsewhere');
    assert.equal((await get(findingsUrl(), key)).status, 200);
    assert.equal((await get(findingsUrl(), key)).status, 200);
    await revokeApiKey(elsewhere.db, id);
    await eventually(async () => (await get(findingsUrl(), key)).status === 401, '401 for the revoked key');
  });

  test("an answer kept for one organization is never another's", async () => {
    const other = await h.org('other');
    assert.equal((await get(findingsUrl())).status, 200);
    const foreign = await get(findingsUrl(), other.key);
    assert.equal(foreign.status, 404);
    const ours = JSON.parse((await get('/api/v1/repositories')).body).items.map((u: { id: string }) => u.id);
    const theirs = JSON.parse((await get('/api/v1/repositories', other.key)).body).items.map((u: { id: string }) => u.id);
    assert.ok(ours.includes(unit.id));
    assert.ok(!theirs.includes(unit.id));
  });

  test("a small scan's results are kept whole, and a finding added to the batch shows", async () => {
    const batchId = expectStatus(await h.call('POST', `/api/v1/repositories/${unit.id}/scans`, { body: { scan_type: 'secrets_scan' } }), 202).batch_id as string;
    await h.finding(unit, { scan_batch_id: batchId, file_path: 'a.js', start_line: 1 });
    const url = `/api/v1/repositories/${unit.id}/scans/${batchId}/results`;
    const [first, again] = await keptAnswer(url);
    assert.equal(again, first);
    assert.equal(JSON.parse(first).findings.length, 1);
    await elsewhere.db.insertInto('findings').values(findingRow(unit, { scan_batch_id: batchId, file_path: 'b.js', start_line: 2 })).execute();
    await eventually(async () => JSON.parse((await get(url)).body).findings.length === 2, 'the added result');
  });

  test('changes made while the change listener was down are not hidden by answers kept before', { skip: TEST_DATABASE !== 'postgres' }, async () => {
    const total = JSON.parse((await get(findingsUrl())).body).total as number;
    const { sql } = await import('kysely');
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where application_name = 'bulwark change listener' and datname = current_database()`.execute(elsewhere.db);
    await elsewhere.db.insertInto('findings').values(findingRow(unit)).execute();
    await eventually(async () => JSON.parse((await get(findingsUrl())).body).total === total + 1, 'the finding added while nobody listened');
  });
});

describe('VersionedCache', () => {
  test('drops an entry asked for under another version, and the least recently used past its weight', () => {
    const cache = new VersionedCache<string>(10, (value) => value.length);
    cache.set('a', 1, 'aaaa');
    cache.set('b', 1, 'bbbb');
    assert.equal(cache.get('a', 1), 'aaaa');
    cache.set('c', 1, 'cccc');
    assert.equal(cache.get('b', 1), undefined, 'b was the least recently used');
    assert.equal(cache.get('a', 1), 'aaaa');
    assert.equal(cache.get('a', 2), undefined);
    assert.equal(cache.get('a', 1), undefined, 'a lookup under another version dropped it');
    cache.set('big', 1, 'x'.repeat(11));
    assert.equal(cache.get('big', 1), undefined, 'heavier than the whole cache: not kept');
    assert.equal(cache.get('c', 1), 'cccc');
  });
});

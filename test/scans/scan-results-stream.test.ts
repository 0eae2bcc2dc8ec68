import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import type { KyselyPlugin, RootOperationNode } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { getScanResults, RESULTS_PAGE_SIZE } from '../../src/core/scan-batches.ts';
import type { Unit } from '../../src/core/units.ts';
import { buildApp } from '../../src/http/app.ts';
import { ScanResultsResponse } from '../../src/http/schemas.ts';
import { serializeResultsJson } from '../../src/http/serializers.ts';
import type { FindingRow } from '../../src/store/schema.ts';
import { expectStatus } from '../support/helpers.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { findingRow } from '../support/finding-rows.ts';

// A batch's results are streamed from a keyset cursor, a page of findings at a time, in the exact shape
// the contract's PublicScanResultsResponse gives them.

/** Records the LIMIT of every SELECT on `findings` that the app sends: the pages it reads. */
function findingPageRecorder() {
  const limits: number[] = [];
  const plugin: KyselyPlugin = {
    transformQuery({ node }: { node: RootOperationNode }) {
      if (node.kind === 'SelectQueryNode' && JSON.stringify(node.from).includes('"findings"') && node.limit) {
        limits.push((node.limit.limit as unknown as { value: number }).value);
      }
      return node;
    },
    async transformResult({ result }) {
      return result;
    },
  };
  return { plugin, limits };
}

async function insertFindings(h: Harness, rows: FindingRow[]) {
  for (let i = 0; i < rows.length; i += 400) await h.database.store.db.insertInto('findings').values(rows.slice(i, i + 400)).execute();
}

const summaryOf = (unit: Unit, f: FindingRow) => ({
  check_id: f.check_id,
  file_path: f.file_path,
  severity: f.severity,
  message: f.message,
  cwe: JSON.parse(f.cwe),
  owasp: JSON.parse(f.owasp),
  fingerprint: f.fingerprint,
  source_repo: unit.sources.find((s) => s.id === f.source_repo_id)?.full_name ?? null,
  start_line: f.start_line,
  end_line: f.end_line,
  commit_sha: f.commit_sha,
  snippet: f.snippet,
});

/** File, then line (a line-less finding first), then id: the order results are given in. */
const byPosition = (a: FindingRow, b: FindingRow) =>
  (a.file_path < b.file_path ? -1 : a.file_path > b.file_path ? 1 : 0) ||
  (a.start_line ?? -1) - (b.start_line ?? -1) ||
  (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

describe('scan results', () => {
  let h: Harness;
  let org: TestOrg;
  let unit: Unit;
  let recorded: ReturnType<typeof findingPageRecorder>;
  let counted: FastifyInstance;

  before(async () => {
    h = await createHarness();
    org = await h.org('results');
    unit = await h.unit(org, ['github:acme/big@main']);
    recorded = findingPageRecorder();
    // The same app on the same database, with every query it sends on `findings` recorded.
    counted = await buildApp({ store: { ...h.database.store, db: h.database.store.db.withPlugin(recorded.plugin) } });
  });
  after(async () => {
    await counted.close();
    await h.close();
  });

  const createBatch = async () =>
    expectStatus(await h.call('POST', `/api/v1/repositories/${unit.id}/scans`, { body: { scan_type: 'secrets_scan' } }), 202).batch_id as string;

  test('are byte for byte the contract shape, in file and line order, only the batch\'s own', async () => {
    const batchId = await createBatch();
    const rows = [
      findingRow(unit, { scan_batch_id: batchId, file_path: 'b.js', start_line: 2, end_line: 4, snippet: 'let x = "1";\n\tpath = \'C:\\\\tmp\' // é ✓ 𝄞 \u0001 </script>', commit_sha: 'abc' }),
      findingRow(unit, { scan_batch_id: batchId, file_path: 'a.js', start_line: 9, owasp: '[]' }),
      findingRow(unit, { scan_batch_id: batchId, file_path: 'a.js', start_line: null, end_line: null }),
      findingRow(unit, { scan_batch_id: null, file_path: 'a.js' }),
    ];
    await insertFindings(h, rows);
    const res = await h.call('GET', `/api/v1/repositories/${unit.id}/scans/${batchId}/results`);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const own = rows.filter((r) => r.scan_batch_id === batchId).sort(byPosition);
    const expected = { batch_id: batchId, scan_type: 'secrets_scan', status: 'queued', findings_count: 3, findings: own.map((f) => summaryOf(unit, f)) };
    assert.equal(res.body, JSON.stringify(expected));
    assert.ok(Value.Check(ScanResultsResponse, res.json()));
  });

  test('an empty batch and an unknown batch', async () => {
    const batchId = await createBatch();
    const empty = expectStatus(await h.call('GET', `/api/v1/repositories/${unit.id}/scans/${batchId}/results`), 200);
    assert.deepEqual(empty, { batch_id: batchId, scan_type: 'secrets_scan', status: 'queued', findings_count: 0, findings: [] });
    const missing = await h.call('GET', `/api/v1/repositories/${unit.id}/scans/no-such-batch/results`);
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().detail.error_code, 'NOT_FOUND');
  });

  test('of 20,000 findings come back whole, read from the database in pages', async () => {
    const batchId = await createBatch();
    const total = 20_000;
    const rows = Array.from({ length: total }, (_, i) =>
      findingRow(unit, {
        scan_batch_id: batchId,
        fingerprint: `fp-${i}`,
        file_path: `src/m${String(i % 37).padStart(2, '0')}.js`,
        start_line: i % 11 === 0 ? null : i % 997,
      }),
    );
    await insertFindings(h, rows);
    recorded.limits.length = 0;
    const res = await counted.inject({
      method: 'GET',
      url: `/api/v1/repositories/${unit.id}/scans/${batchId}/results`,
      headers: { authorization: `Bearer ${(await h.org('reader')).key}` },
    });
    // Another organization's key sees nothing of it.
    assert.equal(res.statusCode, 404);

    const key = (await h.key(org, ['read'])).key;
    recorded.limits.length = 0;
    const read = await counted.inject({ method: 'GET', url: `/api/v1/repositories/${unit.id}/scans/${batchId}/results`, headers: { authorization: `Bearer ${key}` } });
    const body = expectStatus(read, 200);
    assert.equal(body.findings_count, total);
    assert.equal(body.findings.length, total);
    assert.deepEqual(body.findings, rows.sort(byPosition).map((f) => summaryOf(unit, f)));

    // Pages of at most RESULTS_PAGE_SIZE (on PostgreSQL sized down to keep each page's text small): full
    // pages up to the last, which holds the rest and ends the cursor.
    assert.ok(RESULTS_PAGE_SIZE <= 500);
    assert.equal(recorded.limits[0], RESULTS_PAGE_SIZE);
    assert.ok(recorded.limits.every((limit) => limit > 0 && limit <= RESULTS_PAGE_SIZE), `page limits: ${recorded.limits.join(', ')}`);
    const beforeLast = recorded.limits.slice(0, -1).reduce((a, b) => a + b, 0);
    assert.ok(beforeLast <= total && total - beforeLast < recorded.limits.at(-1)!, `page limits: ${recorded.limits.join(', ')}`);
  });

  test('a read gives its page buffer to later reads once its last page has been written, not before', async () => {
    const [a, b] = [await createBatch(), await createBatch()];
    const entries = (batchId: string, tag: string) =>
      Array.from({ length: 20 }, (_, i) => findingRow(unit, { scan_batch_id: batchId, fingerprint: `${tag}-${i}`, file_path: `src/${tag}.py`, start_line: i, snippet: tag.repeat(200) }));
    await insertFindings(h, [...entries(a, 'a'), ...entries(b, 'b')]);
    const db = h.database.store.db;
    const pieces = async (batchId: string) => serializeResultsJson(await getScanResults(db, unit, batchId))[Symbol.asyncIterator]();

    // A's page is out for writing, and the piece after it (the closing bracket) already taken, as a
    // writer reading one piece ahead does, while B is read from end to end.
    const readingA = await pieces(a);
    await readingA.next();
    const pageA = (await readingA.next()).value as Buffer;
    const textA = pageA.toString();
    assert.equal((await readingA.next()).value, ']}');
    const readingB = await pieces(b);
    const piecesB: (string | Buffer)[] = [];
    for (let piece = await readingB.next(); !piece.done; piece = await readingB.next()) piecesB.push(piece.value);
    assert.ok(Buffer.isBuffer(pageA) && Buffer.isBuffer(piecesB[1]), 'pages are read into shared buffers');
    assert.notEqual((piecesB[1] as Buffer).buffer, pageA.buffer, 'B did not get the buffer A\'s page is still in');
    assert.equal(pageA.toString(), textA, 'A\'s page is untouched');
    assert.match(textA, /"snippet":"a{200}"/);

    // Asked for what follows its closing bracket, A's page has been written: its buffer serves the next read.
    assert.equal((await readingA.next()).done, true);
    const readingC = await pieces(b);
    await readingC.next();
    assert.equal(((await readingC.next()).value as Buffer).buffer, pageA.buffer);
    await readingC.return?.(undefined);
  });

  test('read slowly over a socket, arrive byte for byte as read in-process, however the pages queue', async () => {
    const batchId = await createBatch();
    // Distinct text per finding, so a page overwritten before it left would show.
    // About 13 MB, more than the loopback socket buffers hold while the client waits.
    const rows = Array.from({ length: 15_000 }, (_, i) =>
      findingRow(unit, { scan_batch_id: batchId, fingerprint: `slow-${i}`, file_path: `src/f${i % 13}.py`, start_line: i, snippet: `${i}:`.padEnd(450, String.fromCharCode(97 + (i % 26))) }),
    );
    await insertFindings(h, rows);
    const key = (await h.key(org, ['read'])).key;
    const url = `/api/v1/repositories/${unit.id}/scans/${batchId}/results`;
    const inProcess = expectStatus(await counted.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } }), 200);
    assert.equal(inProcess.findings.length, rows.length);

    await counted.listen({ host: '127.0.0.1', port: 0 });
    const { port } = counted.server.address() as { port: number };
    const body = await new Promise<string>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: url, headers: { authorization: `Bearer ${key}` } }, (res) => {
        const chunks: Buffer[] = [];
        let sincePause = 0;
        let first = true;
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          sincePause += chunk.length;
          if (sincePause < 1024 * 1024 && !first) return;
          sincePause = 0;
          res.pause();
          setTimeout(() => res.resume(), first ? 500 : 20);
          first = false;
        });
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      }).on('error', reject);
    });
    assert.deepEqual(JSON.parse(body), inProcess);
  });
});

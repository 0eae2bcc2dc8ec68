import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Kysely, sql } from 'kysely';
import { withRequestOrg } from '../../src/core/request-org.ts';
import { bulkRead, FairTurns, placeText } from '../../src/store/read-lanes.ts';
import { sqliteWorkerDialect } from '../../src/store/sqlite-adapter.ts';

// On SQLite, bulk reads (a results stream's pages) never take the first reader thread, so a short read
// arriving while bulk reads keep every other reader busy is answered at once rather than queued behind one.

let dir: string;
let db: Kysely<Record<string, never>>;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-lanes-'));
  db = new Kysely({ dialect: sqliteWorkerDialect(path.join(dir, 'lanes.db'), 2) });
  await sql`select 1`.execute(db);
});
after(async () => {
  await db.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A read that keeps a reader thread busy for a while: it counts through a few million rows. */
const longRead = () => sql<{ n: number }>`select (with recursive c(x) as (select 1 union all select x + 1 from c where x < 3000000) select count(*) from c) as n`.execute(db);

test('a short read is answered before the bulk reads that arrived ahead of it', async () => {
  const finished: string[] = [];
  const bulk = [1, 2].map((i) =>
    bulkRead(async () => {
      const { rows } = await longRead();
      finished.push(`bulk ${i}`);
      return rows[0].n;
    }),
  );
  const short = sql<{ one: number }>`select 1 as one`.execute(db).then(({ rows }) => {
    finished.push('short');
    return rows[0].one;
  });
  assert.deepEqual(await Promise.all([...bulk, short]), [3_000_000, 3_000_000, 1]);
  assert.equal(finished[0], 'short', `order of answers: ${finished.join(', ')}`);
});

// A bulk read may bring a shared buffer: the bytes it reads are then placed there, not copied to the event
// loop's heap, as far as they fit; what does not fit is copied as usual. Either way the values are the same.
test('a bulk read with a shared buffer gets its column\'s values as views of it, as UTF-8, and copies of what does not fit', async () => {
  const buffer = new SharedArrayBuffer(64);
  const read = () =>
    sql<{ page: string | Buffer; other: string }>`
      select '{"é":1}' as page, 'left' as other
      union all select ${'x'.repeat(100)}, 'too long'
      union all select cast('{"b":2}' as blob), 'bytes'`.execute(db);
  const { rows } = await bulkRead(read, { into: { buffer, column: 'page' } });
  const [text, large, bytes] = rows;
  assert.ok(Buffer.isBuffer(text.page));
  assert.equal(text.page.buffer, buffer, 'the text that fits is read in place');
  assert.equal(text.page.toString(), '{"é":1}');
  assert.equal(large.page, 'x'.repeat(100), 'text that does not fit comes as text');
  assert.ok(Buffer.isBuffer(bytes.page) && bytes.page.buffer === buffer, 'bytes are placed too');
  assert.equal(bytes.page.toString(), '{"b":2}');
  assert.deepEqual(rows.map((row) => row.other), ['left', 'too long', 'bytes'], 'other columns are left alone');

  const plain = (await read()).rows[0];
  assert.equal(plain.page, '{"é":1}', 'without a buffer, values come as they are');
});

test('text a driver decoded is placed in the bulk read\'s buffer as UTF-8 when it fits, and kept as it is otherwise', async () => {
  const buffer = new SharedArrayBuffer(16);
  const into = { buffer, column: 'page' };
  const placed = await bulkRead(async () => placeText('{"é":1}'), { into });
  assert.ok(Buffer.isBuffer(placed));
  assert.equal(placed.buffer, buffer);
  assert.equal(placed.toString(), '{"é":1}', 'its bytes are the text\'s UTF-8');
  assert.equal(await bulkRead(async () => placeText('x'.repeat(17)), { into }), 'x'.repeat(17), 'a text larger than the buffer stays a string');
  assert.equal(await bulkRead(async () => placeText('ééééééééé'), { into }), 'ééééééééé', 'so does one whose UTF-8 is larger than the buffer');
  assert.equal(placeText('outside'), 'outside', 'outside a bulk read there is no buffer');
});

// Database reads are shared fairly between organizations: one organization's queue of expensive reads
// leaves a reader to the others, and when a read ends the next comes from each organization in turn.

/** A read that starts when its turn comes and ends when the test says; `started` says whether it has begun. */
function heldRead(turns: FairTurns, lane: string, log: string[], name: string) {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  const read = turns.run(lane, async () => {
    log.push(name);
    await ended;
  });
  return { read, end };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('fair turns: a read of organization B starts at once while A\'s queued reads wait, and A\'s share is bounded', async () => {
  const turns = new FairTurns(2);
  const log: string[] = [];
  const a = [1, 2, 3, 4].map((i) => heldRead(turns, 'org-a', log, `a${i}`));
  await tick();
  assert.deepEqual(log, ['a1'], 'A runs one read at a time: the other reader is left to the other organizations');
  const b = heldRead(turns, 'org-b', log, 'b1');
  await tick();
  assert.deepEqual(log, ['a1', 'b1'], "B's read starts before any of A's queued reads");
  b.end();
  a[0].end();
  await tick();
  assert.deepEqual(log, ['a1', 'b1', 'a2']);
  for (const r of a) r.end();
  await Promise.all([...a.map((r) => r.read), b.read]);
  assert.deepEqual(log, ['a1', 'b1', 'a2', 'a3', 'a4']);
});

test('fair turns: when a read ends, the next comes from each organization in turn, not in arrival order', async () => {
  const turns = new FairTurns(1);
  const log: string[] = [];
  const held = [heldRead(turns, 'org-a', log, 'a1'), heldRead(turns, 'org-a', log, 'a2'), heldRead(turns, 'org-a', log, 'a3')];
  const others = [heldRead(turns, 'org-b', log, 'b1'), heldRead(turns, 'org-c', log, 'c1'), heldRead(turns, 'org-b', log, 'b2')];
  for (const r of [...held, ...others]) r.end();
  await Promise.all([...held, ...others].map((r) => r.read));
  assert.deepEqual(log, ['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
});

test('on SQLite, a read of another organization is answered before one organization\'s queue of long reads', async () => {
  const finished: string[] = [];
  const queued = [1, 2, 3, 4].map((i) =>
    withRequestOrg('org-a', async () => {
      await longRead();
      finished.push(`a${i}`);
    }),
  );
  await tick();
  const other = withRequestOrg('org-b', async () => {
    await sql`select 1 as one`.execute(db);
    finished.push('b');
  });
  await Promise.all([...queued, other]);
  assert.equal(finished[0], 'b', `order of answers: ${finished.join(', ')}`);
});

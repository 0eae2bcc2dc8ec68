import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Kysely, sql } from 'kysely';
import { bulkRead, placeText } from '../src/store/read-lanes.ts';
import { sqliteWorkerDialect } from '../src/store/sqlite-adapter.ts';

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
test('a bulk read with a shared buffer gets its byte values as views of it, and copies of what does not fit', async () => {
  const into = new SharedArrayBuffer(64);
  const read = () => sql<{ small: Uint8Array; large: Uint8Array; text: string }>`select cast('{"a":1}' as blob) as small, randomblob(100) as large, 'text' as text`.execute(db);
  const { rows } = await bulkRead(read, { into });
  const [row] = rows;
  assert.ok(Buffer.isBuffer(row.small));
  assert.equal(row.small.buffer, into, 'the bytes that fit are read in place');
  assert.equal(Buffer.from(row.small).toString(), '{"a":1}');
  assert.notEqual(row.large.buffer, into);
  assert.equal(row.large.byteLength, 100);
  assert.equal(row.text, 'text');

  const plain = (await read()).rows[0];
  assert.notEqual(plain.small.buffer, into, 'without a buffer, bytes are copied');
  assert.equal(Buffer.from(plain.small).toString(), '{"a":1}');
});

test('text a driver decoded is placed in the bulk read\'s buffer as UTF-8 when it fits, and kept as it is otherwise', async () => {
  const into = new SharedArrayBuffer(16);
  const placed = await bulkRead(async () => placeText('{"é":1}'), { into });
  assert.ok(Buffer.isBuffer(placed));
  assert.equal(placed.buffer, into);
  assert.equal(placed.toString(), '{"é":1}', 'its bytes are the text\'s UTF-8');
  assert.equal(await bulkRead(async () => placeText('x'.repeat(17)), { into }), 'x'.repeat(17), 'a text larger than the buffer stays a string');
  assert.equal(await bulkRead(async () => placeText('ééééééééé'), { into }), 'ééééééééé', 'so does one whose UTF-8 is larger than the buffer');
  assert.equal(placeText('outside'), 'outside', 'outside a bulk read there is no buffer');
});

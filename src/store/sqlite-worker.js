// @ts-check
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

// One SQLite connection in a worker thread (see sqlite-adapter.ts): it runs the statements it is sent,
// one at a time, off the API's event loop. Each distinct SQL text is prepared once and kept.
//
// This file is JavaScript, type-checked through JSDoc, because Node strips TypeScript types with a
// WebAssembly compiler that every thread loading a .ts file instantiates for itself: about 14 MB per
// thread, more than the connection itself costs.

/**
 * @typedef {object} SqliteRequest
 * @property {number} id
 * @property {string} sql
 * @property {import('node:sqlite').SQLInputValue[]} parameters
 * @property {{ buffer: SharedArrayBuffer, column: string }} [into] Where the column's values are placed as UTF-8, as far as they fit (see read-lanes.ts).
 */

/**
 * A value placed in the request's shared buffer instead of being copied with the reply.
 * @typedef {{ sharedOffset: number, sharedLength: number }} SharedBytes
 */

/**
 * @typedef {object} SqliteReply
 * @property {number} id
 * @property {unknown[]} [rows]
 * @property {number} [changes]
 * @property {number} [lastInsertRowid]
 * @property {{ message: string, code?: string, errcode?: number, errstr?: string }} [error]
 */

const STATEMENTS_KEPT = 500;

const { filename, reader } = /** @type {{ filename: string, reader: boolean }} */ (workerData);
const database = new DatabaseSync(filename);
if (!reader) {
  database.exec('PRAGMA journal_mode = WAL');
  database.exec('PRAGMA synchronous = NORMAL');
}
database.exec('PRAGMA busy_timeout = 10000');
database.exec('PRAGMA foreign_keys = ON');
if (reader) database.exec('PRAGMA query_only = 1');

/** @type {Map<string, { statement: import('node:sqlite').StatementSync, reader: boolean }>} */
const statements = new Map();

/** @param {string} sql */
function prepared(sql) {
  let entry = statements.get(sql);
  if (entry) {
    statements.delete(sql);
  } else {
    const statement = database.prepare(sql);
    entry = { statement, reader: statement.columns().length > 0 };
    if (statements.size >= STATEMENTS_KEPT) statements.delete(/** @type {string} */ (statements.keys().next().value));
  }
  statements.set(sql, entry);
  return entry;
}

const utf8 = new TextEncoder();

/**
 * Writes the values of `into.column` into `into.buffer`, one after another while they fit, text as UTF-8,
 * each replaced by where it lies. Text is read as a string, which the thread's young generation collects
 * at once: a BLOB would come as a fresh buffer outside the heap for every row.
 * @param {Record<string, unknown>[]} rows
 * @param {{ buffer: SharedArrayBuffer, column: string }} into
 */
function placeColumn(rows, { buffer, column }) {
  let offset = 0;
  for (const row of rows) {
    const value = row[column];
    const room = new Uint8Array(buffer, offset);
    let length;
    if (typeof value === 'string') {
      const { read, written } = utf8.encodeInto(value, room);
      if (read !== value.length) continue;
      length = written;
    } else if (value instanceof Uint8Array && value.byteLength <= room.byteLength) {
      room.set(value);
      length = value.byteLength;
    } else continue;
    /** @type {SharedBytes} */
    const placed = { sharedOffset: offset, sharedLength: length };
    row[column] = placed;
    offset += length;
  }
}

parentPort?.on('message', (/** @type {SqliteRequest | 'close'} */ request) => {
  if (request === 'close') {
    database.close();
    process.exit(0);
  }
  /** @type {SqliteReply} */
  let reply;
  try {
    const { statement, reader: returnsRows } = prepared(request.sql);
    if (returnsRows) {
      const rows = /** @type {Record<string, unknown>[]} */ (statement.all(...request.parameters));
      if (request.into) placeColumn(rows, request.into);
      reply = { id: request.id, rows };
    } else {
      const result = statement.run(...request.parameters);
      reply = { id: request.id, changes: Number(result.changes), lastInsertRowid: Number(result.lastInsertRowid) };
    }
  } catch (caught) {
    const error = /** @type {Error & { code?: string, errcode?: number, errstr?: string }} */ (caught);
    reply = { id: request.id, error: { message: error.message, code: error.code, errcode: error.errcode, errstr: error.errstr } };
  }
  parentPort?.postMessage(reply);
});

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
 * @property {SharedArrayBuffer} [into] Where byte values of the rows are placed, as far as they fit (see read-lanes.ts).
 */

/**
 * A byte value placed in the request's shared buffer instead of being copied with the reply.
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

/**
 * Copies the rows' byte values into `into`, one after another while they fit, each replaced by where it lies.
 * @param {Record<string, unknown>[]} rows
 * @param {SharedArrayBuffer} into
 */
function placeBytes(rows, into) {
  let offset = 0;
  for (const row of rows) {
    for (const [column, value] of Object.entries(row)) {
      if (!(value instanceof Uint8Array) || offset + value.byteLength > into.byteLength) continue;
      new Uint8Array(into, offset, value.byteLength).set(value);
      /** @type {SharedBytes} */
      const placed = { sharedOffset: offset, sharedLength: value.byteLength };
      row[column] = placed;
      offset += value.byteLength;
    }
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
      if (request.into) placeBytes(rows, request.into);
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

import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

// One SQLite connection in a worker thread (see sqlite-adapter.ts): it runs the statements it is sent,
// one at a time, off the API's event loop. Each distinct SQL text is prepared once and kept.

export interface SqliteRequest {
  id: number;
  sql: string;
  parameters: SQLInputValue[];
}

export interface SqliteReply {
  id: number;
  rows?: unknown[];
  changes?: number;
  lastInsertRowid?: number;
  error?: { message: string; code?: string; errcode?: number; errstr?: string };
}

const STATEMENTS_KEPT = 500;

const { filename, reader } = workerData as { filename: string; reader: boolean };
const database = new DatabaseSync(filename);
if (!reader) {
  database.exec('PRAGMA journal_mode = WAL');
  database.exec('PRAGMA synchronous = NORMAL');
}
database.exec('PRAGMA busy_timeout = 10000');
database.exec('PRAGMA foreign_keys = ON');
if (reader) database.exec('PRAGMA query_only = 1');

const statements = new Map<string, { statement: StatementSync; reader: boolean }>();

function prepared(sql: string) {
  let entry = statements.get(sql);
  if (entry) {
    statements.delete(sql);
  } else {
    const statement = database.prepare(sql);
    entry = { statement, reader: statement.columns().length > 0 };
    if (statements.size >= STATEMENTS_KEPT) statements.delete(statements.keys().next().value!);
  }
  statements.set(sql, entry);
  return entry;
}

parentPort!.on('message', (request: SqliteRequest | 'close') => {
  if (request === 'close') {
    database.close();
    process.exit(0);
  }
  let reply: SqliteReply;
  try {
    const { statement, reader: returnsRows } = prepared(request.sql);
    if (returnsRows) {
      reply = { id: request.id, rows: statement.all(...request.parameters) };
    } else {
      const result = statement.run(...request.parameters);
      reply = { id: request.id, changes: Number(result.changes), lastInsertRowid: Number(result.lastInsertRowid) };
    }
  } catch (caught) {
    const error = caught as Error & { code?: string; errcode?: number; errstr?: string };
    reply = { id: request.id, error: { message: error.message, code: error.code, errcode: error.errcode, errstr: error.errstr } };
  }
  parentPort!.postMessage(reply);
});

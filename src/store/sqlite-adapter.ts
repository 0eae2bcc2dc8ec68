import { DatabaseSync, type StatementSync, type SQLInputValue } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

// Kysely's SqliteDialect speaks the better-sqlite3 interface (a native addon). node:sqlite is built
// into Node 24 and needs no compilation, but its statements take spread parameters, reject booleans
// and expose `columns()` instead of `reader`. No maintained adapter exists, so this thin one bridges them.

function toSqlite(value: unknown): SQLInputValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  return value as SQLInputValue;
}

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean;
  private readonly statement: StatementSync;

  constructor(statement: StatementSync) {
    this.statement = statement;
    this.reader = statement.columns().length > 0;
  }

  all(parameters: ReadonlyArray<unknown>): unknown[] {
    return this.statement.all(...parameters.map(toSqlite));
  }

  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint } {
    const result = this.statement.run(...parameters.map(toSqlite));
    return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
  }

  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    return this.statement.iterate(...parameters.map(toSqlite)) as IterableIterator<unknown>;
  }
}

export function openSqlite(filename: string): SqliteDatabase {
  const database = new DatabaseSync(filename);
  database.exec('PRAGMA journal_mode = WAL');
  database.exec('PRAGMA synchronous = NORMAL');
  database.exec('PRAGMA busy_timeout = 10000');
  database.exec('PRAGMA foreign_keys = ON');
  return {
    close: () => database.close(),
    prepare: (sql: string) => new NodeSqliteStatement(database.prepare(sql)),
  };
}

import fs from 'node:fs';
import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Store } from './database.ts';

// The migrations are the modules of ./migrations named NNN_what.ts, run in the order of their numbers. The
// folder is found from this module, not the working directory, so they run the same from anywhere; a new
// migration is its file alone.
const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
const MIGRATION_FILE = /^(\d{3}_\w+)\.ts$/;

const provider: MigrationProvider = {
  async getMigrations() {
    const names = fs.readdirSync(MIGRATIONS_DIR).flatMap((file) => MIGRATION_FILE.exec(file)?.[1] ?? []).sort();
    const modules: Migration[] = await Promise.all(names.map((name) => import(new URL(`${name}.ts`, MIGRATIONS_DIR).href)));
    return Object.fromEntries(names.map((name, i) => [name, modules[i]!]));
  },
};

export interface MigrationReport {
  applied: string[];
}

export async function migrateToLatest(store: Store): Promise<MigrationReport> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one; name the current
  // schema so databases that hold several Bulwark schemas (one per tenant or test run) stay apart.
  const migrationTableSchema =
    store.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({ db: store.db, provider, migrationTableSchema });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${(error as Error).message ?? error}`);
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

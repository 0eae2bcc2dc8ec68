import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Store } from './database.ts';
import * as initial from './migrations/001_initial.ts';

// Migrations are listed here rather than discovered on disk, so they run the same from any working directory.
const migrations: Record<string, Migration> = {
  '001_initial': initial,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export interface MigrationReport {
  applied: string[];
}

export async function migrateToLatest(store: Store): Promise<MigrationReport> {
  const migrator = new Migrator({ db: store.db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${(error as Error).message ?? error}`);
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

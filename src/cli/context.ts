import path from 'node:path';
import { loadSettings, type Settings } from '../config.ts';
import { findOrganization } from '../core/organizations.ts';
import { loadTokenBox, type TokenBox } from '../crypto/token-box.ts';
import { openStore, type Store } from '../store/database.ts';
import { migrateToLatest } from '../store/migrate.ts';
import type { Organization } from '../store/schema.ts';
import { UsageError } from './output.ts';

export interface CliContext {
  settings: Settings;
  store: Store;
  /** Migrations this command applied while opening the database (empty when it was already current). */
  migrated: string[];
  tokenBox: () => TokenBox;
}

/** Opens the configured database, brought up to the latest schema, for one command. */
export async function withContext<T>(dataDir: string | undefined, run: (ctx: CliContext) => Promise<T>): Promise<T> {
  const settings = loadSettings(process.env, { dataDir: dataDir ? path.resolve(dataDir) : undefined });
  const store = openStore(settings);
  try {
    const { applied } = await migrateToLatest(store);
    return await run({ settings, store, migrated: applied, tokenBox: () => loadTokenBox(settings.encryptionKey, settings.dataDir) });
  } finally {
    await store.close();
  }
}

export async function requireOrg(ctx: CliContext, idOrSlug: string): Promise<Organization> {
  const org = await findOrganization(ctx.store.db, idOrSlug);
  if (!org) throw new UsageError(`no organization with id or slug "${idOrSlug}"`);
  return org;
}

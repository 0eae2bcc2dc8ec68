import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { connect } from '../support/postgres-run.ts';
import { createTestDatabase, POSTGRES_URL, TEST_DATABASE, type TestDatabase } from '../support/store.ts';

// One PostgreSQL database may hold several Bulwark schemas (tenants, or the files of a test run), each
// migrated by its own process. What another schema does to its tables at that moment must not fail a
// migration: the migrator looks only at the schema it works in.

const postgresOnly = TEST_DATABASE === 'postgres' ? false : 'needs a PostgreSQL server (BULWARK_TEST_DB=postgres)';

describe('migrations beside other schemas', { skip: postgresOnly }, () => {
  let database: TestDatabase;
  const neighbour = `t_neighbour_${process.pid}`;

  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    const admin = await connect(POSTGRES_URL);
    await admin.query(`drop schema if exists ${neighbour} cascade`);
    await admin.end();
    await database?.cleanup();
  });

  test('a schema changing its columns meanwhile neither fails nor shows up in the migration of another', async () => {
    const admin = await connect(POSTGRES_URL);
    await admin.query(`create schema ${neighbour}; create table ${neighbour}.findings (c0 text)`);
    let churning = true;
    let renames = 0;
    const churn = (async () => {
      while (churning) {
        await admin.query(`alter table ${neighbour}.findings rename column c${renames % 2} to c${(renames + 1) % 2}`);
        renames++;
      }
    })();
    const failures: string[] = [];
    try {
      for (let i = 0; i < 40; i++) {
        try {
          assert.deepEqual(await migrateToLatest(database.store), { applied: [] });
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    } finally {
      churning = false;
      await churn;
      await admin.end();
    }
    assert.ok(renames > 0, 'the neighbouring schema changed while the migrations ran');
    assert.deepEqual(failures, []);
    const tables = await database.store.db.introspection.getTables({ withInternalKyselyTables: true });
    assert.ok(tables.some((t) => t.name === 'findings' && t.columns.some((c) => c.name === 'detected_by')));
    assert.ok(tables.every((t) => !t.schema?.startsWith('t_neighbour_')), 'only the store\'s own schema is read');
    assert.ok(tables.some((t) => t.name === 'kysely_migration'));
  });
});

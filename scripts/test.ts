// Runs the whole suite once on the embedded SQLite store and once on PostgreSQL.
// BULWARK_TEST_DBS=sqlite (or postgres) limits the run to one of them; extra arguments pick test files.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dropTestSchemas } from '../test/support/store.ts';

const databases = (process.env.BULWARK_TEST_DBS ?? 'sqlite,postgres').split(',').map((s) => s.trim()).filter(Boolean);
const requested = process.argv.slice(2);
const files = requested.length
  ? requested
  : fs.readdirSync('test').filter((f) => f.endsWith('.test.ts')).sort().map((f) => path.join('test', f));

let failed = false;
for (const database of databases) {
  console.log(`\n=== test suite on ${database} ===`);
  if (database === 'postgres') await dropTestSchemas();
  const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], {
    stdio: 'inherit',
    env: { ...process.env, BULWARK_TEST_DB: database },
  });
  if (result.status !== 0) failed = true;
  if (database === 'postgres') await dropTestSchemas();
}
process.exit(failed ? 1 : 0);

// Runs the whole suite once on the embedded SQLite store and once on PostgreSQL.
// BULWARK_TEST_DBS=sqlite (or postgres) limits the run to one of them; extra arguments pick test files.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dropTestSchemas } from '../test/support/store.ts';

const databases = (process.env.BULWARK_TEST_DBS ?? 'sqlite,postgres').split(',').map((s) => s.trim()).filter(Boolean);
const requested = process.argv.slice(2);
/** Every `*.test.ts` under test/ and src/ (extractors keep their tests beside their code). */
function discoverTestFiles(): string[] {
  return ['test', 'src']
    .flatMap((root) => fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).map((f) => path.join(root, f)))
    .filter((f) => f.endsWith('.test.ts') && !f.split(path.sep).includes('fixtures'))
    .sort();
}
const files = requested.length ? requested : discoverTestFiles();

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

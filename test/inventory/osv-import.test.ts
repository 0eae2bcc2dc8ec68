import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { storedAdvisories } from '../../src/osv/advisories.ts';
import { importOsv } from '../../src/osv/import.ts';
import { osvRecord, writeRecordDir, writeRecordZip } from '../support/osv-records.ts';
import { createTestDatabase, type TestDatabase } from '../support/store.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

const lodash = osvRecord('GHSA-2099-lodash-aaaa', 'npm', 'lodash', [{ introduced: '0' }, { fixed: '4.17.21' }], {
  aliases: ['CVE-2099-1001'],
  severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
  database_specific: { cwe_ids: ['CWE-1321'], severity: 'HIGH' },
  references: [{ type: 'ADVISORY', url: 'https://example.test/advisories/lodash' }],
});
const django = osvRecord('PYSEC-2099-7', 'PyPI', 'Django_Rest.Framework', [{ introduced: '3.0' }, { fixed: '3.14.1' }]);
const debianOnly = osvRecord('DSA-2099-1', 'Debian:12', 'openssl', [{ introduced: '0' }, { fixed: '3.0.99' }]);

describe('OSV import', () => {
  let database: TestDatabase;
  let work: string;
  const db = () => database.store.db;
  const count = async (table: 'osv_advisories' | 'osv_affected') =>
    Number((await db().selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await database.cleanup();
  });
  beforeEach(async () => {
    await db().deleteFrom('osv_affected').execute();
    await db().deleteFrom('osv_advisories').execute();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-osv-'));
  });

  test('a directory of records: supported ecosystems stored, others skipped, broken ones counted and named', async () => {
    writeRecordDir(path.join(work, 'npm'), [lodash]);
    writeRecordDir(path.join(work, 'pypi', 'nested'), [django]);
    writeRecordDir(work, [debianOnly]);
    fs.writeFileSync(path.join(work, 'broken.json'), '{ not json');
    fs.writeFileSync(path.join(work, 'no-modified.json'), JSON.stringify({ id: 'GHSA-2099-none-zzzz' }));
    fs.writeFileSync(path.join(work, 'README.md'), 'not a record');

    const report = await importOsv(db(), work);
    assert.deepEqual(
      { ...report, errors: report.errors.length },
      { read: 5, added: 2, updated: 0, unchanged: 0, withdrawn: 0, skipped: 1, invalid: 2, errors: 2 },
    );
    assert.ok(report.errors.some((e) => e.includes('broken.json') && e.includes('not JSON')));
    assert.ok(report.errors.some((e) => e.includes('GHSA-2099-none-zzzz has no modified time')));

    const stored = await db().selectFrom('osv_advisories').selectAll().where('id', '=', lodash.id).executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(stored.aliases), ['CVE-2099-1001']);
    assert.deepEqual(JSON.parse(stored.cwe_ids), ['CWE-1321']);
    assert.equal(stored.database_severity, 'HIGH');
    assert.deepEqual(JSON.parse(stored.severity), lodash.severity);
    assert.deepEqual(JSON.parse(stored.references), lodash.references);
    const pypi = await db().selectFrom('osv_affected').selectAll().where('advisory_id', '=', django.id).executeTakeFirstOrThrow();
    assert.equal(pypi.package_key, 'django-rest-framework', 'PyPI names are stored PEP 503-normalized');
    assert.equal(pypi.package_name, 'Django_Rest.Framework');
  });

  test('only http(s) references are kept: a javascript:, data: or relative one never reaches a stored advisory', async () => {
    const hostile = osvRecord('GHSA-2099-links-aaaa', 'npm', 'links', [{ introduced: '0' }], {
      references: [
        { type: 'WEB', url: 'javascript:alert(document.cookie)' },
        { type: 'WEB', url: ' JavaScript:alert(1)' },
        { type: 'WEB', url: 'data:text/html,<script>alert(1)</script>' },
        { type: 'WEB', url: '/relative/page' },
        { type: 'ADVISORY', url: 'https://example.test/advisories/links' },
        { type: 'WEB', url: 'http://example.test/plain' },
      ],
    });
    writeRecordDir(work, [hostile]);
    await importOsv(db(), work);
    const stored = await db().selectFrom('osv_advisories').selectAll().where('id', '=', hostile.id).executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(stored.references).map((r: { url: string }) => r.url), ['https://example.test/advisories/links', 'http://example.test/plain']);
  });

  test('importing the same export again changes nothing; a newer record replaces its affected packages', async () => {
    writeRecordDir(work, [lodash, django]);
    await importOsv(db(), work);
    const again = await importOsv(db(), work);
    assert.deepEqual([again.added, again.updated, again.unchanged], [0, 0, 2]);
    assert.equal(await count('osv_advisories'), 2);
    assert.equal(await count('osv_affected'), 2);

    const moved = {
      ...lodash,
      modified: '2099-06-01T00:00:00Z',
      affected: [
        { package: { ecosystem: 'npm', name: 'lodash-es' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '4.17.22' }] }] },
        { package: { ecosystem: 'npm', name: 'lodash' }, versions: ['4.17.20'] },
      ],
    };
    writeRecordDir(work, [moved]);
    const update = await importOsv(db(), work);
    assert.deepEqual([update.added, update.updated, update.unchanged], [0, 1, 1]);
    const rows = await db().selectFrom('osv_affected').selectAll().where('advisory_id', '=', lodash.id).orderBy('position').execute();
    assert.deepEqual(rows.map((r) => [r.package_name, JSON.parse(r.versions)]), [['lodash-es', []], ['lodash', ['4.17.20']]]);

    // An older copy of a record never overwrites a newer one.
    writeRecordDir(work, [lodash]);
    assert.equal((await importOsv(db(), work)).unchanged, 2);
    assert.equal((await db().selectFrom('osv_advisories').select('modified').where('id', '=', lodash.id).executeTakeFirstOrThrow()).modified, moved.modified);
  });

  test('withdrawn records are kept with their marker and never offered for matching', async () => {
    writeRecordDir(work, [lodash, { ...django, id: 'PYSEC-2099-8' }]);
    await importOsv(db(), work);
    const lookup = storedAdvisories(db());
    assert.equal((await lookup.forPackages('npm', ['lodash'])).get('lodash')?.[0]?.id, lodash.id);

    writeRecordDir(work, [{ ...lodash, modified: '2099-02-01T00:00:00Z', withdrawn: '2099-02-01T00:00:00Z' }]);
    const report = await importOsv(db(), work);
    assert.equal(report.withdrawn, 1);
    assert.equal((await lookup.forPackages('npm', ['lodash'])).size, 0);
    const found = await lookup.forPackages('PyPI', ['django-rest-framework', 'requests']);
    assert.deepEqual([...found.keys()], ['django-rest-framework']);
    assert.deepEqual(found.get('django-rest-framework')!.map((a) => a.id), ['PYSEC-2099-8']);
  });

  test('an all.zip export streams record by record, across several batches', async () => {
    const records = Array.from({ length: 1_203 }, (_, i) =>
      osvRecord(`GHSA-2099-bulk-${String(i).padStart(4, '0')}`, 'npm', `pkg-${i % 400}`, [{ introduced: '0' }, { fixed: `1.${i}.0` }]),
    );
    const zip = path.join(work, 'all.zip');
    await writeRecordZip(zip, [...records, '{"broken"']);
    const progress: number[] = [];
    const report = await importOsv(db(), zip, (r) => progress.push(r.read));
    assert.deepEqual([report.read, report.added, report.invalid], [1_204, 1_203, 1]);
    assert.deepEqual(progress, [500, 1_000], 'progress is reported after each stored batch');
    assert.equal(await count('osv_advisories'), 1_203);
    const pkg7 = (await storedAdvisories(db()).forPackages('npm', ['pkg-7'])).get('pkg-7')!;
    assert.deepEqual(pkg7.map((a) => a.id), ['GHSA-2099-bulk-0007', 'GHSA-2099-bulk-0407', 'GHSA-2099-bulk-0807']);
  });

  test('bulwark osv import prints its counts; a missing path is a usage error', () => {
    writeRecordDir(work, [lodash, django, debianOnly]);
    const env = { ...process.env, DATABASE_URL: undefined, ...database.env };
    const run = spawnSync(process.execPath, [CLI, 'osv', 'import', work, '--json'], { encoding: 'utf8', env });
    assert.equal(run.status, 0, run.stderr);
    const printed = JSON.parse(run.stdout);
    assert.deepEqual([printed.read, printed.added, printed.skipped, printed.invalid], [3, 2, 1, 0]);

    const missing = spawnSync(process.execPath, [CLI, 'osv', 'import', path.join(work, 'nope.zip')], { encoding: 'utf8', env });
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /nope\.zip does not exist/);
  });
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as CDX from '@cyclonedx/cyclonedx-library';
import { importOsv } from '../../src/osv/import.ts';
import { scanRepository } from '../support/helpers.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { osvRecord, writeRecordDir } from '../support/osv-records.ts';

const CRITICAL_VECTOR = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';

const ADVISORIES = [
  osvRecord('GHSA-2099-lodash-aaaa', 'npm', 'lodash', [{ introduced: '0' }, { fixed: '4.17.21' }], {
    summary: 'Prototype pollution in lodash',
    aliases: ['CVE-2099-1001'],
    severity: [{ type: 'CVSS_V3', score: CRITICAL_VECTOR }],
    database_specific: { cwe_ids: ['CWE-1321'], severity: 'CRITICAL' },
    references: [{ type: 'ADVISORY', url: 'https://example.test/advisories/lodash' }],
  }),
  // One Django flaw published twice, as PYSEC and as GHSA: one finding, under the GHSA id.
  osvRecord('PYSEC-2099-7', 'PyPI', 'django', [{ introduced: '3.2' }, { fixed: '3.2.19' }, { introduced: '4.0' }, { fixed: '4.1.9' }], {
    summary: 'SQL injection in QuerySet.values',
    aliases: ['CVE-2099-2002'],
  }),
  osvRecord('GHSA-2099-djan-bbbb', 'PyPI', 'Django', [{ introduced: '3.2' }, { fixed: '3.2.19' }], {
    summary: undefined,
    aliases: ['CVE-2099-2002', 'PYSEC-2099-7'],
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N' }],
    database_specific: { cwe_ids: ['CWE-89'] },
  }),
  osvRecord('GHSA-2099-gone-cccc', 'npm', 'minimist', [{ introduced: '0' }], { withdrawn: '2099-01-02T00:00:00Z' }),
];

function packageLock(lodash: string) {
  const lock = {
    name: 'shop',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'shop', version: '1.0.0', dependencies: { lodash: `^${lodash}`, minimist: '^1.2.8' } },
      'node_modules/lodash': { version: lodash, resolved: `https://registry.npmjs.org/lodash/-/lodash-${lodash}.tgz`, license: 'MIT' },
      'node_modules/minimist': { version: '1.2.8', resolved: 'https://registry.npmjs.org/minimist/-/minimist-1.2.8.tgz', license: 'MIT' },
    },
  };
  return JSON.stringify(lock, null, 2) + '\n';
}

const PACKAGE_JSON = JSON.stringify({ name: 'shop', version: '1.0.0', dependencies: { lodash: '^4.17.20', minimist: '^1.2.8' } }, null, 2);

describe('sbom_scan over HTTP on a real repository', () => {
  let h: Harness;
  let org: TestOrg;
  let repo: TestRepo;

  before(async () => {
    h = await createHarness({ scanning: true });
    org = await h.org('sbom');
    repo = TestRepo.create();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-osv-'));
    writeRecordDir(dir, ADVISORIES);
    await importOsv(h.database.store.db, dir);
    fs.rmSync(dir, { recursive: true });
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  const scan = (unitId: string, scanType = 'sbom_scan') => scanRepository(h, unitId, scanType);

  const findings = async (unitId: string) =>
    (await h.call('GET', `/api/v1/repositories/${unitId}/findings?scan_type=sbom_scan&limit=200`)).json().items as any[];

  test('vulnerable lockfiles become findings with CVSS; the SBOM downloads; an upgrade resolves its finding', async () => {
    repo.commit({
      'package.json': PACKAGE_JSON,
      'package-lock.json': packageLock('4.17.20'),
      'api/requirements.txt': 'django==3.2.4  # web\nrequests==2.31.0\n',
      'node_modules/left-pad/package-lock.json': packageLock('4.17.0'),
    });
    const unit = await h.unit(org, ['github:acme/shop@main'], 'shop', [repo.url]);

    const first = await scan(unit.id);
    assert.equal(first.progress.status, 'completed', first.progress.error_message ?? '');
    const found = await findings(unit.id);
    assert.deepEqual(found.map((f) => f.check_id).sort(), ['GHSA-2099-djan-bbbb', 'GHSA-2099-lodash-aaaa']);

    const lodash = found.find((f) => f.check_id === 'GHSA-2099-lodash-aaaa');
    assert.equal(lodash.title, 'Prototype pollution in lodash');
    assert.match(lodash.message, /lodash 4\.17\.20 .*GHSA-2099-lodash-aaaa.*Upgrade to 4\.17\.21 or later/);
    assert.equal(lodash.category, 'dependency');
    assert.equal(lodash.file_path, 'package-lock.json');
    assert.equal(lodash.start_line, packageLock('4.17.20').split('\n').findIndex((l) => l.includes('"node_modules/lodash"')) + 1);
    assert.equal(lodash.severity, 'critical');
    assert.equal(lodash.cvss_base_score, 9.8);
    assert.equal(lodash.cvss_vector, CRITICAL_VECTOR);
    assert.equal(lodash.cvss_severity, 'critical');
    assert.deepEqual(lodash.cwe, ['CWE-1321']);
    assert.deepEqual(lodash.references, ['https://example.test/advisories/lodash']);
    assert.equal(lodash.source_url, 'https://github.com/advisories/GHSA-2099-lodash-aaaa');

    const django = found.find((f) => f.check_id === 'GHSA-2099-djan-bbbb');
    assert.equal(django.file_path, 'api/requirements.txt');
    assert.equal(django.start_line, 1);
    assert.equal(django.severity, 'medium');
    assert.equal(django.cvss_base_score, 6.1);
    assert.equal(django.title, 'SQL injection in QuerySet.values', 'the PYSEC summary fills in what the GHSA record lacks');
    assert.deepEqual(django.cwe, ['CWE-89']);
    assert.match(django.message, /Upgrade to 3\.2\.19 or later/);

    const sbom = await h.call('GET', `/api/v1/repositories/${unit.id}/scans/${first.batchId}/sbom`);
    assert.equal(sbom.statusCode, 200, sbom.body);
    assert.match(String(sbom.headers['content-type']), /^application\/vnd\.cyclonedx\+json/);
    const validator = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot6);
    assert.equal(await validator.validate(sbom.body), null, 'the SBOM validates against the CycloneDX 1.6 JSON schema');
    const document = sbom.json();
    assert.equal(document.specVersion, '1.6');
    assert.equal(document.metadata.component.name, 'acme/shop');
    assert.deepEqual(
      document.components.map((c: any) => c.purl).sort(),
      ['pkg:npm/lodash@4.17.20', 'pkg:npm/minimist@1.2.8', 'pkg:pypi/django@3.2.4', 'pkg:pypi/requests@2.31.0'],
      'node_modules is not inventoried',
    );

    repo.commit({ 'package-lock.json': packageLock('4.17.21') }, 'upgrade lodash');
    await scan(unit.id);
    const after = await findings(unit.id);
    assert.equal(after.find((f) => f.id === lodash.id).status, 'resolved');
    assert.equal(after.find((f) => f.id === django.id).status, 'open');
    const events = (await h.call('GET', `/api/v1/finding-events?finding_id=${lodash.id}`)).json().items.map((e: any) => e.event_type);
    assert.deepEqual(events, ['resolved_auto', 'detected']);

    repo.commit({ 'package-lock.json': packageLock('4.17.19') }, 'roll back lodash');
    await scan(unit.id);
    const reopened = (await findings(unit.id)).find((f) => f.id === lodash.id);
    assert.equal(reopened.status, 'open');
    assert.match(reopened.message, /lodash 4\.17\.19 /);
  });

  test('the SBOM route refuses other scan types and unknown scans clearly', async () => {
    repo.commit({ 'README.md': '# shop\n' }, 'docs');
    const unit = await h.unit(org, ['github:acme/docs@main'], 'docs', [repo.url]);
    const secrets = await scan(unit.id, 'secrets_scan');
    const wrongType = await h.call('GET', `/api/v1/repositories/${unit.id}/scans/${secrets.batchId}/sbom`);
    assert.equal(wrongType.statusCode, 409);
    assert.deepEqual(wrongType.json(), {
      detail: { detail: 'This scan is a secrets_scan; only sbom_scan scans produce an SBOM.', error_code: 'INVALID_STATE' },
    });
    const unknown = await h.call('GET', `/api/v1/repositories/${unit.id}/scans/00000000-0000-4000-8000-000000000000/sbom`);
    assert.equal(unknown.statusCode, 404);
    const other = await h.org('sbom-other');
    const foreign = await h.call('GET', `/api/v1/repositories/${unit.id}/scans/${secrets.batchId}/sbom`, { key: other.key });
    assert.equal(foreign.statusCode, 404);
  });
});

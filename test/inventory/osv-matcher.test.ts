import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Advisory } from '../../src/osv/advisories.ts';
import { matchComponents, vulnerabilitiesOf } from '../../src/osv/matcher.ts';
import { component } from '../../src/inventory/component.ts';

function advisory(id: string, aliases: string[], events: Record<string, string>[], extra: Partial<Advisory> = {}): Advisory {
  return {
    id,
    aliases,
    summary: null,
    severity: [],
    databaseSeverity: null,
    cweIds: [],
    references: [],
    affected: [{ ranges: [{ type: 'ECOSYSTEM', events }] }],
    ...extra,
  };
}

const requests = component({ name: 'Requests', version: '2.19.0', ecosystem: 'PyPI', direct: true, sourceFile: 'requirements.txt' });

describe('matching components to advisories', () => {
  test('advisories chained by aliases become one vulnerability; unrelated ones stay apart', () => {
    const found = vulnerabilitiesOf(requests, [
      advisory('PYSEC-2099-1', ['CVE-2099-0001'], [{ introduced: '0' }, { fixed: '2.20.0' }], { summary: 'from PYSEC', cweIds: ['CWE-200'] }),
      advisory('CVE-2099-0001', ['GHSA-2099-reqs-aaaa'], [{ introduced: '2.0.0' }, { fixed: '2.19.1' }], { references: ['https://example.test/a'] }),
      advisory('PYSEC-2099-2', [], [{ introduced: '2.0' }, { last_affected: '2.31.0' }], { databaseSeverity: 'LOW' }),
      advisory('PYSEC-2099-3', [], [{ introduced: '2.25.0' }, { fixed: '2.26.0' }]),
    ]);
    assert.equal(found.length, 2);
    const [chained, alone] = found.sort((a, b) => a.ids.length - b.ids.length).reverse();
    assert.equal(chained!.id, 'GHSA-2099-reqs-aaaa', 'a GHSA id is preferred even when only an alias names it');
    assert.deepEqual(chained!.ids, ['CVE-2099-0001', 'GHSA-2099-reqs-aaaa', 'PYSEC-2099-1']);
    assert.equal(chained!.fixedVersion, '2.19.1', 'the nearest fixed version across the collapsed records');
    assert.equal(chained!.summary, 'from PYSEC');
    assert.deepEqual(chained!.cweIds, ['CWE-200']);
    assert.deepEqual(chained!.references, ['https://example.test/a']);
    assert.equal(chained!.severity, 'medium', 'no CVSS and no database severity');
    assert.equal(alone!.id, 'PYSEC-2099-2');
    assert.equal(alone!.fixedVersion, null, 'last_affected names no fix');
    assert.equal(alone!.severity, 'low');
  });

  test('CVE is preferred over other ids when there is no GHSA; CVSS decides severity over the database label', () => {
    const [found] = vulnerabilitiesOf(requests, [
      advisory('PYSEC-2099-9', ['CVE-2099-0009'], [{ introduced: '0' }], {
        databaseSeverity: 'LOW',
        severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
      }),
    ]);
    assert.equal(found!.id, 'CVE-2099-0009');
    assert.equal(found!.severity, 'critical');
    assert.equal(found!.cvss?.baseScore, 9.8);
  });

  test('the lookup is asked once per ecosystem with normalized names; components without a version are not matched', async () => {
    const asked: [string, string[]][] = [];
    const lookup = {
      hasRecords: async () => true,
      async forPackages(ecosystem: string, keys: string[]) {
        asked.push([ecosystem, keys]);
        return new Map(keys.includes('requests') ? [['requests', [advisory('GHSA-2099-reqs-bbbb', [], [{ introduced: '0' }, { fixed: '3.0.0' }])]]] : []);
      },
    };
    const components = [
      requests,
      component({ name: 'requests', version: '2.19.0', ecosystem: 'PyPI', direct: false, sourceFile: 'poetry.lock' }),
      component({ name: 'left-pad', version: '', ecosystem: 'npm', direct: true, sourceFile: 'package-lock.json' }),
      component({ name: 'serde', version: '1.0.0', ecosystem: 'crates.io', direct: true, sourceFile: 'Cargo.lock' }),
    ];
    const found = await matchComponents(components, lookup);
    assert.deepEqual(asked, [['PyPI', ['requests']], ['crates.io', ['serde']]]);
    assert.deepEqual(found.map((v) => [v.id, v.component.sourceFile]), [['GHSA-2099-reqs-bbbb', 'requirements.txt'], ['GHSA-2099-reqs-bbbb', 'poetry.lock']]);
  });
  test('unpinned requirements and first-party packages are never matched; the new ecosystems are asked by their OSV names', async () => {
    const asked: [string, string[]][] = [];
    const lookup = {
      hasRecords: async () => true,
      async forPackages(ecosystem: string, keys: string[]) {
        asked.push([ecosystem, keys]);
        const hit = [advisory('GHSA-2099-any-cccc', [], [{ introduced: '0' }, { fixed: '99.0.0' }])];
        return new Map(keys.map((key) => [key, hit]));
      },
    };
    const components = [
      component({ name: 'flask', version: '', ecosystem: 'PyPI', direct: true, sourceFile: 'requirements.txt', note: 'unpinned (no version)' }),
      component({ name: 'shared', version: '1.0.0', ecosystem: 'npm', direct: true, firstParty: true, sourceFile: 'package-lock.json' }),
      component({ name: 'tj-actions/changed-files', version: 'v45.0.0', ecosystem: 'GitHub Actions', direct: true, sourceFile: '.github/workflows/ci.yml' }),
      component({ name: 'phoenix', version: '1.7.10', ecosystem: 'Hex', direct: null, sourceFile: 'mix.lock' }),
      component({ name: 'github.com/vapor/vapor', version: '4.92.4', ecosystem: 'SwiftURL', direct: null, sourceFile: 'Package.resolved' }),
    ];
    const found = await matchComponents(components, lookup);
    assert.deepEqual(asked, [
      ['GitHub Actions', ['tj-actions/changed-files']],
      ['Hex', ['phoenix']],
      ['SwiftURL', ['github.com/vapor/vapor']],
    ]);
    assert.deepEqual(found.map((v) => v.component.name), ['tj-actions/changed-files', 'phoenix', 'github.com/vapor/vapor']);
  });
});

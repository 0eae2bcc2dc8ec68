import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { affectedMatch, nearestFixedVersion } from '../../src/osv/affected.ts';
import type { OsvAffected, OsvRecord } from '../../src/osv/record.ts';
import { ECOSYSTEMS, WITHOUT_OSV_RECORDS, type Ecosystem } from '../../src/inventory/component.ts';

const FIXTURES = new URL('../fixtures/osv/', import.meta.url);

function fixture(id: string): OsvRecord {
  return JSON.parse(fs.readFileSync(new URL(`${id}.json`, FIXTURES), 'utf8')) as OsvRecord;
}

function entryFor(record: OsvRecord, name: string): OsvAffected {
  const entry = record.affected?.find((a) => a.package?.name === name);
  assert.ok(entry, `${record.id} has an entry for ${name}`);
  return entry;
}

interface Case {
  record: string;
  package: string;
  ecosystem: Ecosystem;
  what: string;
  affected: string[];
  unaffected: string[];
  /** Expected fixedVersions for some affected versions. */
  fixes?: Record<string, string[]>;
}

const CASES: Case[] = [
  {
    record: 'GHSA-xxxx-xxxx-aaaa',
    package: 'fixture-widget',
    ecosystem: 'npm',
    what: 'ECOSYSTEM range, introduced 0, fixed 2.0.0',
    affected: ['0.0.0-alpha', '0.0.1', '1.9.9', '2.0.0-rc.1', '2.0.0-0'],
    unaffected: ['2.0.0', 'v2.0.0', '2.0.0+build', '2.0.1', '3.0.0-beta.1'],
    fixes: { '1.9.9': ['2.0.0'], '2.0.0-rc.1': ['2.0.0'] },
  },
  {
    record: 'GHSA-xxxx-xxxx-bbbb',
    package: 'fixture-parser',
    ecosystem: 'npm',
    what: 'two introduced/fixed pairs in one range, a pre-release introduced',
    affected: ['1.0.0', '1.2.4', '1.2.5-rc.1', '2.0.0-beta.2', '2.0.0-beta.11', '2.0.0', '2.0.2'],
    unaffected: ['0.9.9', '1.0.0-rc.1', '1.2.5', '1.5.0', '2.0.0-beta.1', '2.0.0-alpha', '2.0.3', '3.0.0'],
    fixes: { '1.0.0': ['1.2.5', '2.0.3'], '2.0.0-beta.11': ['2.0.3'] },
  },
  {
    record: 'GHSA-xxxx-xxxx-cccc',
    package: 'fixture-logger',
    ecosystem: 'npm',
    what: 'SEMVER range, last_affected 1.5.0 (inclusive), no fix',
    affected: ['1.0.0', 'v1.2.0', '1.5.0-beta', '1.5.0', '1.5.0+build'],
    unaffected: ['0.9.0', '1.0.0-rc.1', '1.5.1', '1.5.1-alpha', '2.0.0'],
    fixes: { '1.5.0': [] },
  },
  {
    record: 'GHSA-xxxx-xxxx-dddd',
    package: 'fixture-router',
    ecosystem: 'npm',
    what: 'unsorted events with introduced 0 last',
    affected: ['0.0.1', '1.4.1', '1.4.2-beta', '2.5.0', '3.0.0', '3.0.1-rc.1'],
    unaffected: ['1.4.2', '2.0.0', '2.4.9', '2.5.0-rc.1', '3.0.1', '4.0.0'],
    fixes: { '1.0.0': ['1.4.2', '3.0.1'], '2.6.0': ['3.0.1'] },
  },
  {
    record: 'CVE-2099-0004',
    package: 'fixture-native',
    ecosystem: 'npm',
    what: 'GIT range ignored, explicit versions list used',
    affected: ['1.1.0', '1.1.1', 'v1.1.1'],
    unaffected: ['1.0.0', '1.1.2', '1.2.0'],
    fixes: { '1.1.0': [] },
  },
  {
    record: 'CVE-2099-0004',
    package: 'fixture-native-cli',
    ecosystem: 'npm',
    what: 'only a GIT range, which cannot be evaluated without the commit graph',
    affected: [],
    unaffected: ['0.0.1', '1.0.0', '99.0.0'],
  },
  {
    record: 'PYSEC-2099-1',
    package: 'fixture-widget',
    ecosystem: 'PyPI',
    what: 'PEP 440 pre-, dev- and post-releases around introduced 1.0a1 / fixed 1.0.post1',
    affected: ['1.0a1', '1.0b2', '1.0rc1', '1.0', '1.0.0', 'v1.0', '1.0+local', '1.0.post1.dev0', '1.0-RC1'],
    unaffected: ['0.9', '1.0.dev1', '1.0a1.dev1', '1.0.post1', '1.0-1', '1.0.post2', '1.1'],
    fixes: { '1.0rc1': ['1.0.post1'] },
  },
  {
    record: 'PYSEC-2099-2',
    package: 'fixture-legacy',
    ecosystem: 'PyPI',
    what: 'explicit versions only: exact strings and versions PEP 440 holds equal',
    affected: ['2.1.0', '2.1', '2.1.0.0', '2.1.1', '2.2-legacy-build'],
    unaffected: ['2.0.9', '2.1.2', '2.2', '2.2-legacy'],
    fixes: { '2.1.0': [] },
  },
  {
    record: 'GO-2099-0001',
    package: 'example.com/fixture/widget',
    ecosystem: 'Go',
    what: 'SEMVER ranges without v against v-prefixed module versions and pseudo-versions',
    affected: ['v0.0.0-20200101000000-abcdef123456', 'v1.2.3', 'v1.2.4-0.20231010101010-abcdef123456', '1.2.3', 'v1.3.0', 'v1.3.1'],
    unaffected: ['v1.2.4', 'v1.2.9', 'v1.3.0-rc.1', 'v1.3.2', 'v2.0.0'],
    fixes: { 'v1.2.3': ['1.2.4', '1.3.2'], 'v1.3.1': ['1.3.2'] },
  },
  {
    record: 'GHSA-xxxx-xxxx-gggg',
    package: 'github.com/fixture/legacy-engine',
    ecosystem: 'Go',
    what: '+incompatible versions order like their base version',
    affected: ['v17.3.0+incompatible', 'v20.10.10+incompatible', 'v20.10.11-0.20211201000000-abcdef123456+incompatible'],
    unaffected: ['v20.10.11+incompatible', 'v20.10.11', 'v20.10.12+incompatible', 'v23.0.0+incompatible'],
    fixes: { 'v20.10.10+incompatible': ['20.10.11'] },
  },
  {
    record: 'RUSTSEC-2099-0001',
    package: 'fixture-widget',
    ecosystem: 'crates.io',
    what: 'SEMVER range from 0.0.0-0 with a second introduced/fixed pair',
    affected: ['0.0.0', '0.1.0', '0.7.2', '0.7.3-alpha.1', '0.8.0'],
    unaffected: ['0.7.3', '0.7.9', '0.8.0-rc.1', '0.8.1', '1.0.0'],
    fixes: { '0.1.0': ['0.7.3', '0.8.1'], '0.8.0': ['0.8.1'] },
  },
  {
    record: 'GHSA-xxxx-xxxx-hhhh',
    package: 'com.example.fixture:widget-core',
    ecosystem: 'Maven',
    what: 'Maven qualifiers: SNAPSHOT, RC/CR, Final, sp, and last_affected 4.1',
    affected: ['1.0', '2.5.0', '2.5.0.Final', '2.5.1-SNAPSHOT', '2.5.1-RC1', '3.0.0-RC1', '3.0.0-CR2', '3.0.0-SNAPSHOT', '4.0', '4.1-RC1', '4.1', '4.1.0'],
    unaffected: ['2.5.1', '2.5.1.Final', '2.5.1-sp1', '2.6', '3.0.0-alpha1', '3.0.0-beta', '3.0.0', '3.0.0.Final', '3.1', '4.1-sp1', '4.1.1', '${widget.version}'],
    fixes: { '2.5.1-SNAPSHOT': ['2.5.1', '3.0.0.Final'], '3.0.0-RC1': ['3.0.0.Final'], '4.1': [] },
  },
  {
    record: 'GHSA-xxxx-xxxx-jjjj',
    package: 'fixture_widget',
    ecosystem: 'RubyGems',
    what: 'RubyGems pre-releases (letters) around 5.2.4.3 and 6.0.0.beta1',
    affected: ['4.0', '5.2.4.2', '5.2.4.3.pre', '6.0.0.beta1', '6.0.0.beta2', '6.0.0.rc1', '6.0.0', '6.0.3'],
    unaffected: ['5.2.4.3', '5.2.5', '6.0.0.alpha', '6.0.3.1', '6.1.0'],
    fixes: { '5.2.4.3.pre': ['5.2.4.3', '6.0.3.1'], '6.0.0.rc1': ['6.0.3.1'] },
  },
  {
    record: 'GHSA-xxxx-xxxx-mmmm',
    package: 'fixture/widget',
    ecosystem: 'Packagist',
    what: 'Composer normalization: v prefix, four parts, stabilities, -p patches',
    affected: ['v1.4.1', '1.4.2-RC1', '1.4.2-dev', '2.0.0-beta1', '2.0.0-beta.2', '2.0.0-RC1', '2.0.4', '2.4.0', 'v2.4.0.0'],
    unaffected: ['1.4.2', 'v1.4.2.0', '1.4.2+build', '1.9.0', '2.0.0-alpha3', '2.0.0-dev', '2.0.5', '2.4.0-p1', '2.4.0-patch1', '2.4.0-p2', '2.4.1', 'dev-main'],
    fixes: { 'v1.4.1': ['1.4.2', '2.0.5', '2.4.0-p1'], '2.4.0': ['2.4.0-p1'] },
  },
  {
    record: 'GHSA-xxxx-xxxx-pppp',
    package: 'Fixture.Widget',
    ecosystem: 'NuGet',
    what: 'NuGet four-part versions and case-insensitive pre-release labels',
    affected: ['1.0', '1.0.0', '1.2.3', '1.2.3.3', '2.0.0-beta', '2.0.0-BETA', '2.0.0-beta.1', '2.0.0-rc.1', '2.0.0-RC.1'],
    unaffected: ['0.9.0', '1.0.0-rc.1', '1.2.3.4', '1.2.3.5', '1.3.0', '2.0.0-alpha', '2.0.0-rc.2', '2.0.0-Rc.2+meta', '2.0.0-rc.10', '2.0.0'],
    fixes: { '1.2.3': ['1.2.3.4', '2.0.0-RC.2'], '2.0.0-BETA': ['2.0.0-RC.2'] },
  },
  {
    record: 'GHSA-xxxx-xxxx-qqqq',
    package: 'fixture_widget',
    ecosystem: 'Pub',
    what: 'pub orders build numbers: fixed 1.0.0+2, last_affected 2.1.0',
    affected: ['1.0.0', '1.0.0+1', '2.0.0', '2.0.5', '2.1.0'],
    unaffected: ['1.0.0-dev', '1.0.0+2', '1.0.0+10', '1.0.1', '1.9.9', '2.1.0+1', '2.1.1'],
    fixes: { '1.0.0+1': ['1.0.0+2'], '2.1.0': [] },
  },
  {
    record: 'GHSA-xxxx-xxxx-rrrr',
    package: 'fixture-org/changed-files',
    ecosystem: 'GitHub Actions',
    what: 'a GitHub Action: tags as SemVer with a leading v; a major-only tag or a SHA cannot be ordered',
    affected: ['v45.0.0', '46.0.0', 'v46.0.0'],
    unaffected: ['v46.0.1', 'v47.0.0', 'v46', '0e58ed8671d6b60d0890c21b07f8835ace038e67'],
    fixes: { 'v45.0.0': ['46.0.1'] },
  },
  {
    record: 'GHSA-xxxx-xxxx-rrrr',
    package: 'fixture_plug',
    ecosystem: 'Hex',
    what: 'a Hex package, SemVer',
    affected: ['1.14.0', '1.15.3'],
    unaffected: ['1.13.6', '1.15.4', '1.16.0'],
  },
  {
    record: 'GHSA-xxxx-xxxx-rrrr',
    package: 'github.com/fixture-org/fixture-kit',
    ecosystem: 'SwiftURL',
    what: 'a Swift package named by its repository URL',
    affected: ['4.92.4'],
    unaffected: ['4.92.5', '5.0.0'],
  },
  {
    record: 'GHSA-xxxx-xxxx-rrrr',
    package: 'fixture-zlib',
    ecosystem: 'ConanCenter',
    what: 'a Conan recipe, dotted numbers',
    affected: ['1.2.11', '1.3'],
    unaffected: ['1.3.1', '1.3.2'],
  },
  {
    record: 'GHSA-xxxx-xxxx-rrrr',
    package: 'fixturer',
    ecosystem: 'CRAN',
    what: 'an R package, last_affected',
    affected: ['1.0.0', '1.1.4'],
    unaffected: ['1.1.5', '2.0'],
  },
];

describe('OSV fixture records', () => {
  const files = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.json'));

  test('every record is well-formed OSV with a made-up id', () => {
    assert.ok(files.length >= new Set(CASES.map((c) => c.record)).size - 1);
    for (const file of files) {
      const record = fixture(file.replace(/\.json$/, ''));
      assert.equal(`${record.id}.json`, file);
      assert.match(record.id, /^(GHSA-xxxx-xxxx-[a-z]{4}|(CVE|PYSEC|GO|RUSTSEC)-2099-\d+)$/, 'cannot be mistaken for a real advisory');
      assert.ok(!Number.isNaN(Date.parse(record.modified)), `${record.id} modified`);
      assert.ok(record.affected?.length, `${record.id} affected`);
      for (const affected of record.affected) {
        assert.ok((ECOSYSTEMS as readonly string[]).includes(affected.package!.ecosystem), `${record.id} ecosystem`);
        assert.ok(affected.package!.name);
        for (const range of affected.ranges ?? []) {
          assert.ok(['ECOSYSTEM', 'SEMVER', 'GIT'].includes(range.type));
          assert.ok(range.events.some((e) => 'introduced' in e), `${record.id}: a range needs an introduced event`);
          for (const event of range.events) assert.equal(Object.keys(event).length, 1, `${record.id}: one kind per event`);
          assert.ok(!(range.events.some((e) => 'fixed' in e) && range.events.some((e) => 'last_affected' in e)), 'fixed or last_affected, not both');
          if (range.type === 'GIT') assert.ok(range.repo);
        }
      }
    }
  });

  test('the set covers what importers and end-to-end tests rely on', () => {
    const records = files.map((f) => fixture(f.replace(/\.json$/, '')));
    const types = new Set(records.flatMap((r) => (r.severity ?? []).map((s) => s.type)));
    assert.deepEqual([...types].sort(), ['CVSS_V2', 'CVSS_V3', 'CVSS_V4']);
    assert.equal(records.filter((r) => r.withdrawn).length, 1);
    assert.ok(records.some((r) => r.aliases?.length && r.database_specific?.cwe_ids?.length && r.references?.length));
    const ecosystems = new Set(records.flatMap((r) => r.affected!.map((a) => a.package!.ecosystem)));
    assert.deepEqual([...ecosystems].sort(), ECOSYSTEMS.filter((e) => !WITHOUT_OSV_RECORDS.includes(e)).sort());
  });

  test('a withdrawn record still matches by its ranges: skipping it is the lookup’s job', () => {
    const record = fixture('GHSA-xxxx-xxxx-eeee');
    assert.ok(record.withdrawn);
    assert.equal(affectedMatch(entryFor(record, 'fixture-retired'), 'npm', '1.0.0').affected, true);
  });
});

for (const c of CASES) {
  describe(`${c.ecosystem} ${c.package} (${c.record}): ${c.what}`, () => {
    const entry = entryFor(fixture(c.record), c.package);
    for (const version of c.affected) {
      test(`${version} is affected`, () => {
        assert.equal(affectedMatch(entry, c.ecosystem, version).affected, true);
      });
    }
    for (const version of c.unaffected) {
      test(`${version} is not affected`, () => {
        assert.deepEqual(affectedMatch(entry, c.ecosystem, version), { affected: false, fixedVersions: [] });
      });
    }
    for (const [version, fixed] of Object.entries(c.fixes ?? {})) {
      test(`${version} is fixed by ${fixed.join(', ') || 'nothing yet'}`, () => {
        assert.deepEqual(affectedMatch(entry, c.ecosystem, version).fixedVersions, fixed);
      });
    }
  });
}

describe('range evaluation details', () => {
  const npmEntry = (ranges: OsvAffected['ranges'], versions?: string[]): OsvAffected => ({ package: { ecosystem: 'npm', name: 'x' }, ranges, versions });

  test('limit events are ignored outside GIT ranges', () => {
    const entry = npmEntry([{ type: 'ECOSYSTEM', events: [{ introduced: '1.0.0' }, { fixed: '1.1.0' }, { limit: '1.0.5' }] }]);
    assert.equal(affectedMatch(entry, 'npm', '1.0.7').affected, true);
    assert.equal(affectedMatch(entry, 'npm', '1.1.0').affected, false);
  });

  test('at equal versions events keep the record’s order: a range may end where the next one starts', () => {
    const adjoining = npmEntry([{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2.0.0' }, { introduced: '2.0.0' }, { fixed: '3.0.0' }] }]);
    assert.equal(affectedMatch(adjoining, 'npm', '2.0.0').affected, true);
    const empty = npmEntry([{ type: 'ECOSYSTEM', events: [{ introduced: '2.0.0' }, { fixed: '2.0.0' }] }]);
    assert.equal(affectedMatch(empty, 'npm', '2.0.0').affected, false);
  });

  test('a range whose versions the scheme cannot order is skipped, others still count', () => {
    const entry = npmEntry([
      { type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: 'not-a-version' }] },
      { type: 'ECOSYSTEM', events: [{ introduced: '5.0.0' }, { fixed: '5.1.0' }] },
    ]);
    assert.equal(affectedMatch(entry, 'npm', '1.0.0').affected, false);
    assert.deepEqual(affectedMatch(entry, 'npm', '5.0.1'), { affected: true, fixedVersions: ['5.1.0'] });
  });

  test('an installed version the scheme cannot read matches only by exact string', () => {
    const entry = npmEntry([{ type: 'ECOSYSTEM', events: [{ introduced: '0' }] }], ['git+https://example.test/x.git#abc']);
    assert.equal(affectedMatch(entry, 'npm', 'file:../x').affected, false);
    assert.deepEqual(affectedMatch(entry, 'npm', 'git+https://example.test/x.git#abc'), { affected: true, fixedVersions: [] });
  });

  test('unknown range types, missing ranges and ranges without introduced affect nothing', () => {
    assert.equal(affectedMatch(npmEntry([{ type: 'CUSTOM', events: [{ introduced: '0' }] }]), 'npm', '1.0.0').affected, false);
    assert.equal(affectedMatch({ package: { ecosystem: 'npm', name: 'x' } }, 'npm', '1.0.0').affected, false);
    assert.equal(affectedMatch(npmEntry([{ type: 'ECOSYSTEM', events: [{ fixed: '2.0.0' }] }]), 'npm', '1.0.0').affected, false);
  });

  test('SEMVER ranges use SemVer even where the ecosystem orders differently', () => {
    const entry: OsvAffected = { ranges: [{ type: 'SEMVER', events: [{ introduced: '1.0.0' }, { fixed: '1.0.0+2' }] }] };
    // SemVer ignores build metadata, so this range is empty there; pub's own order would include 1.0.0+1.
    assert.equal(affectedMatch(entry, 'Pub', '1.0.0+1').affected, false);
    const ecosystemRange: OsvAffected = { ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '1.0.0' }, { fixed: '1.0.0+2' }] }] };
    assert.equal(affectedMatch(ecosystemRange, 'Pub', '1.0.0+1').affected, true);
  });

  test('introduced 0 is below every version, even ones below "0" in the scheme', () => {
    const entry: OsvAffected = { ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.0' }] }] };
    assert.equal(affectedMatch(entry, 'PyPI', '0.dev0').affected, true);
    assert.equal(affectedMatch(entry, 'Maven', '0-alpha').affected, true);
  });
});

describe('nearestFixedVersion', () => {
  test('the lowest fixed version in the ecosystem order, ignoring ones it cannot read', () => {
    assert.equal(nearestFixedVersion('npm', ['2.0.3', '1.10.0', '1.9.0', 'garbage']), '1.9.0');
    assert.equal(nearestFixedVersion('Maven', ['3.0.0.Final', '2.5.1', '2.5.1-SNAPSHOT']), '2.5.1-SNAPSHOT');
    assert.equal(nearestFixedVersion('PyPI', []), null);
  });
});

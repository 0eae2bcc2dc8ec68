// Several advisories of one package are fixed by one upgrade: the fixer raises the package to a version
// clear of every stored advisory affecting the installed one, as the advisories tell even without the
// registry, and its note names the other advisories the upgrade fixes (a second fix of them is refused,
// see fix-overlap.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDependencyFixer } from '../../src/fixing/fixers/dependencies/dependency-fixer.ts';
import { createPackageRegistry } from '../../src/fixing/fixers/dependencies/package-registry.ts';
import type { Advisory, AdvisoryLookup } from '../../src/osv/advisories.ts';
import type { FixFinding } from '../../src/fixing/types.ts';
import { REGISTRY_CATALOG } from '../support/registry-catalog.ts';
import { startRegistryStandIn, type RegistryStandIn } from '../support/package-registry-standin.ts';
import { read, workTree } from '../support/fix-workspace.ts';

const advisory = (id: string, fixed: string): Advisory => ({
  id, aliases: [], summary: null, severity: [], databaseSeverity: null, cweIds: [], references: [],
  affected: [{ ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed }] }] }] as Advisory['affected'],
});

const lookup = (byPackage: Record<string, Advisory[]>): AdvisoryLookup => ({
  hasRecords: async () => true,
  forPackages: async (_ecosystem, keys) => new Map(keys.map((key) => [key, byPackage[key] ?? []])),
});

function finding(advisoryId: string, file: string, name: string, installed: string, fixed: string): FixFinding {
  return {
    id: `f-${advisoryId}`, scanType: 'sbom_scan', checkId: advisoryId, category: 'dependency', severity: 'high', title: null,
    message: '', filePath: file, startLine: 1, endLine: 1, cwe: [],
    metadata: { package: name, ecosystem: 'PyPI', installed_version: installed, fixed_version: fixed },
  };
}

let registry: RegistryStandIn;
before(async () => {
  registry = await startRegistryStandIn(REGISTRY_CATALOG);
});
after(() => registry.close());

describe('one upgrade for several advisories of a package', () => {
  test('without the registry: the plain bump goes to the version that fixes both, and says so', async () => {
    const advisories = lookup({ jinja2: [advisory('GHSA-aaaa', '2.10.1'), advisory('GHSA-bbbb', '2.11.3')] });
    const offline = createDependencyFixer({ registry: createPackageRegistry({ pypiUrl: 'http://127.0.0.1:9', npmUrl: 'http://127.0.0.1:9' }), advisories });
    const workspace = workTree({ 'requirements.txt': 'Jinja2==2.9.6\n' });
    const outcome = await offline.apply(finding('GHSA-aaaa', 'requirements.txt', 'jinja2', '2.9.6', '2.10.1'), workspace);
    assert.equal(outcome.fixed, true, outcome.note);
    assert.equal(read(workspace, 'requirements.txt'), 'Jinja2==2.11.3\n');
    assert.match(outcome.note, /jinja2 goes to 2\.11\.3 or later rather than 2\.10\.1, so that the one upgrade also fixes GHSA-bbbb of jinja2/);
  });

  test('the second advisory of the same fix finds the package upgraded already: one change', async () => {
    const advisories = lookup({ jinja2: [advisory('GHSA-aaaa', '2.10.1'), advisory('GHSA-bbbb', '2.11.3')] });
    const offline = createDependencyFixer({ registry: createPackageRegistry({ pypiUrl: 'http://127.0.0.1:9', npmUrl: 'http://127.0.0.1:9' }), advisories });
    const workspace = workTree({ 'requirements.txt': 'Jinja2==2.9.6\n' });
    await offline.apply(finding('GHSA-aaaa', 'requirements.txt', 'jinja2', '2.9.6', '2.10.1'), workspace);
    const second = await offline.apply(finding('GHSA-bbbb', 'requirements.txt', 'jinja2', '2.9.6', '2.11.3'), workspace);
    assert.equal(second.fixed, true, second.note);
    assert.deepEqual(second.changedFiles, []);
    assert.equal(read(workspace, 'requirements.txt'), 'Jinja2==2.11.3\n');
  });

  test('an advisory that does not affect the installed version changes nothing about the bump', async () => {
    const advisories = lookup({ jinja2: [advisory('GHSA-aaaa', '2.10.1'), { ...advisory('GHSA-cccc', '3.1.3'), affected: [{ ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '3.0.0' }, { fixed: '3.1.3' }] }] }] as Advisory['affected'] }] });
    const offline = createDependencyFixer({ registry: createPackageRegistry({ pypiUrl: 'http://127.0.0.1:9', npmUrl: 'http://127.0.0.1:9' }), advisories });
    const workspace = workTree({ 'requirements.txt': 'Jinja2==2.9.6\n' });
    const outcome = await offline.apply(finding('GHSA-aaaa', 'requirements.txt', 'jinja2', '2.9.6', '2.10.1'), workspace);
    assert.equal(read(workspace, 'requirements.txt'), 'Jinja2==2.10.1\n');
    assert.doesNotMatch(outcome.note, /also fixes/);
  });
});

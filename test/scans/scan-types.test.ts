import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { defaultEngines, runnableScanTypes } from '../../src/scanning/engines.ts';
import { fixerFor } from '../../src/fixing/fixers/index.ts';
import type { FixFinding } from '../../src/fixing/types.ts';
import { CONTRACT_FIXTURES_DIR } from '../support/contract.ts';
import { fixFinding } from '../support/finding-rows.ts';
import { verifyFix } from '../../src/fixing/verify.ts';
import { withScanTypesTable } from '../../src/scanning/scan-types/docs.ts';
import { SCAN_TYPE_NAMES } from '../../src/scanning/scan-type-names.ts';
import { allScanTypes, quotaTypeForScan, scanTypeNamed, scanTypesOf, SCAN_TYPES, UnknownScanTypeError } from '../../src/scanning/scan-types/index.ts';

const finding = (scanType: string) => fixFinding({ scanType: scanType as FixFinding['scanType'] });

describe('the scan-type registry', () => {
  test('lists the wire names in contract order, per route family', () => {
    const contract = JSON.parse(fs.readFileSync(path.join(CONTRACT_FIXTURES_DIR, 'repositories-family.openapi.json'), 'utf8'));
    assert.deepEqual(SCAN_TYPES, contract.components.schemas.ScanType.enum);
    assert.deepEqual(scanTypesOf('repository'), SCAN_TYPES);
    // An SBOM is one repository's inventory: the application family takes every other type.
    assert.deepEqual(scanTypesOf('application'), SCAN_TYPES.filter((type) => type !== 'sbom_scan'));
  });

  test('has one descriptor per name of scan-type-names.ts, in its order', () => {
    assert.deepEqual(allScanTypes().map((d) => d.name), [...SCAN_TYPE_NAMES]);
  });

  test('each type names its credit; an unknown type throws instead of taking another type’s quota', () => {
    assert.equal(quotaTypeForScan('secrets_scan'), 'sast_scans');
    assert.equal(quotaTypeForScan('semgrep_scan'), 'sast_scans');
    assert.equal(quotaTypeForScan('sbom_scan'), 'sast_scans');
    assert.equal(quotaTypeForScan('deep_ai_scan'), 'deep_ai_scans');
    assert.throws(() => quotaTypeForScan('full_scan'), UnknownScanTypeError);
    assert.throws(() => scanTypeNamed(''), /unknown scan type ""/);
  });

  test('each engine loads on first use and answers for its own type', async () => {
    const engines = defaultEngines({ secretsHistoryDepth: 0 });
    for (const descriptor of allScanTypes()) {
      const engine = await engines.engineFor(descriptor.name);
      if (descriptor.engine === null) assert.equal(engine, null, descriptor.name);
      else assert.equal(engine?.scanType, descriptor.name);
    }
    assert.deepEqual(runnableScanTypes(), allScanTypes().filter((d) => d.engine !== null).map((d) => d.name));
    await assert.rejects(engines.engineFor('quantum_scan'), UnknownScanTypeError);
  });

  test('fixers are looked up by the finding’s rule, not its type', () => {
    const secret = { checkId: 'secrets.github-pat' };
    assert.equal(fixerFor({ ...finding('secrets_scan'), ...secret })?.name, 'secrets');
    assert.equal(fixerFor({ ...finding('deep_ai_scan'), ...secret })?.name, 'secrets');
    assert.equal(fixerFor(finding('deep_ai_scan')), undefined);
  });

  test('verification refuses a finding of an unknown type instead of counting it as fixed', async () => {
    await assert.rejects(verifyFix('/nonexistent', [finding('quantum_scan')], []), UnknownScanTypeError);
  });

  test('the README’s scan-type table is the registry’s (regenerate with node scripts/docs-tables.ts)', () => {
    const readme = fs.readFileSync(path.join(import.meta.dirname, '../..', 'README.md'), 'utf8');
    assert.equal(readme, withScanTypesTable(readme));
    for (const name of SCAN_TYPES) assert.ok(readme.includes(`| \`${name}\` |`), name);
  });
});

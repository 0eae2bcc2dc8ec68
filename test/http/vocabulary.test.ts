import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CODE_HOST_NAMES } from '../../src/code-hosts/index.ts';
import { EVENT_TYPES } from '../../src/core/finding-events.ts';
import { ROLES } from '../../src/core/roles.ts';
import { SCOPES } from '../../src/core/scopes.ts';
import { SEVERITIES } from '../../src/core/severity.ts';
import { BATCH_STATUS } from '../../src/core/states/batch-status.ts';
import { FINDING_STATUSES } from '../../src/core/states/finding-state.ts';
import { FIX_STATUS } from '../../src/core/states/fix-status.ts';
import { SCAN_STATUS } from '../../src/core/states/scan-status.ts';
import { SCAN_TYPES, scanTypesOf } from '../../src/scanning/scan-types/index.ts';
import { createHarness, type Harness } from '../support/api.ts';
import { CONTRACT_FIXTURES_DIR } from '../support/contract.ts';

// The console (console/src/api/vocabulary.ts) and other clients read the service's lists from the OpenAPI
// document's components.schemas; each must be the list of the module that owns it, in its order.

let h: Harness;
let schemas: Record<string, { enum?: string[]; anyOf?: { enum?: string[] }[] }>;
before(async () => {
  h = await createHarness();
  const res = await h.call('GET', '/openapi.json', { key: null });
  assert.equal(res.statusCode, 200);
  schemas = res.json().components.schemas;
});
after(() => h.close());

const valuesOf = (name: string) => {
  const schema = schemas[name];
  assert.ok(schema, `components.schemas has no ${name}`);
  return schema.enum ?? (schema.anyOf ?? []).flatMap((option) => option.enum ?? []);
};

test('every list is published under its name, as its module lists it', () => {
  const owners: Record<string, readonly string[]> = {
    Severity: SEVERITIES,
    FindingStatus: FINDING_STATUSES,
    FindingEventType: EVENT_TYPES,
    ScanType: SCAN_TYPES,
    RepositoryScanType: scanTypesOf('repository'),
    ApplicationScanType: scanTypesOf('application'),
    ScanBatchStatus: BATCH_STATUS.statuses,
    ScanBatchEndStatus: BATCH_STATUS.terminal,
    ScanStatus: SCAN_STATUS.statuses,
    FixStatus: FIX_STATUS.statuses,
    Role: ROLES,
    Scope: SCOPES,
    CodeHost: CODE_HOST_NAMES,
  };
  for (const [name, values] of Object.entries(owners)) assert.deepEqual(valuesOf(name), [...values], name);
});

test('the lists the public contract also names are as it lists them', () => {
  for (const file of ['repositories-family.openapi.json', 'applications-family.openapi.json']) {
    const contract = JSON.parse(fs.readFileSync(path.join(CONTRACT_FIXTURES_DIR, file), 'utf8')).components.schemas;
    for (const name of ['FindingStatus', 'ScanType']) assert.deepEqual(valuesOf(name), contract[name].enum, `${file}: ${name}`);
  }
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FINDING_STATUSES } from '../../src/core/findings.ts';
import { EVENT_TYPES } from '../../src/core/finding-events.ts';
import { BATCH_STATUS } from '../../src/core/states/batch-status.ts';
import { SEVERITIES } from '../../src/core/severity.ts';
import { SCAN_TYPES, scanTypesOf } from '../../src/scanning/scan-types/index.ts';
import { expectStatus, expectValidationError } from '../support/helpers.ts';
import { createHarness, type Harness } from '../support/api.ts';
import { CONTRACT_FIXTURES_DIR } from '../support/contract.ts';

// Every enum filter of every list route: a value it does not know is a 422 in the validation format that
// lists the values it takes, never an empty page.

type Schema = { enum?: string[]; anyOf?: Schema[]; $ref?: string };
type Parameter = { name: string; in: string; schema: Schema };
type Doc = { paths: Record<string, Record<string, { parameters?: Parameter[] }>>; components?: { schemas?: Record<string, Schema> } };

/** The enum a parameter's schema allows (through a $ref or a nullable anyOf), or undefined for a free value. */
function enumOf(doc: Doc, schema: Schema | undefined): string[] | undefined {
  if (!schema) return undefined;
  if (schema.$ref) return enumOf(doc, doc.components?.schemas?.[schema.$ref.split('/').pop()!]);
  if (schema.enum) return schema.enum;
  for (const branch of schema.anyOf ?? []) {
    const found = enumOf(doc, branch);
    if (found) return found;
  }
  return undefined;
}

const repositoryTypes = scanTypesOf('repository');
const applicationTypes = scanTypesOf('application');
/** What each list route's enum filters must take, from each enum's one declaration. */
const EXPECTED: Record<string, Record<string, readonly string[]>> = {
  '/api/v1/repositories/{repository_id}/findings': { severity: SEVERITIES, status: FINDING_STATUSES, scan_type: repositoryTypes, sort: ['newest', 'severity'] },
  '/api/v1/applications/{application_id}/findings': { severity: SEVERITIES, status: FINDING_STATUSES, scan_type: applicationTypes, sort: ['newest', 'severity'] },
  '/api/v1/finding-events': { scan_type: SCAN_TYPES, severity: SEVERITIES, event_type: EVENT_TYPES },
  '/api/v1/repositories/{repository_id}/scans': { scan_type: repositoryTypes, status: BATCH_STATUS.statuses },
  '/api/v1/applications/{application_id}/scans': { scan_type: applicationTypes, status: BATCH_STATUS.statuses },
  '/api/v1/repositories/{repository_id}/fixes': {},
  '/api/v1/applications/{application_id}/fixes': {},
  '/api/v1/repositories': {},
  '/api/v1/applications': {},
};

describe('the enum filters of the list routes', () => {
  let h: Harness;
  let ours: Doc;
  const ids: Record<string, string> = {};

  before(async () => {
    h = await createHarness();
    const org = await h.org('filters');
    ids.repository_id = (await h.unit(org, ['github:acme/api@main'])).id;
    ids.application_id = (await h.unit(org, ['github:acme/web@main', 'gitlab:acme/mobile@develop'], 'storefront')).id;
    ours = expectStatus(await h.call('GET', '/openapi.json', { key: null }), 200);
  });
  after(() => h.close());

  const urlOf = (route: string) => route.replace(/\{(\w+)\}/g, (_, name: string) => ids[name]);

  test('each list route declares exactly the filters it should, with the values of their one declaration', () => {
    for (const [route, filters] of Object.entries(EXPECTED)) {
      const parameters = ours.paths[route]?.get?.parameters ?? [];
      const enums = Object.fromEntries(parameters.filter((p) => p.in === 'query' && enumOf(ours, p.schema)).map((p) => [p.name, enumOf(ours, p.schema)]));
      assert.deepEqual(enums, Object.fromEntries(Object.entries(filters).map(([name, values]) => [name, [...values]])), route);
    }
  });

  test('where the published contract lists a filter\'s values, every value taken is one of them', () => {
    for (const file of ['repositories-family.openapi.json', 'applications-family.openapi.json']) {
      const contract: Doc = JSON.parse(fs.readFileSync(path.join(CONTRACT_FIXTURES_DIR, file), 'utf8'));
      for (const [route, methods] of Object.entries(contract.paths)) {
        for (const parameter of methods.get?.parameters ?? []) {
          const published = enumOf(contract, parameter.schema);
          if (!published || parameter.in !== 'query') continue;
          const mine = ours.paths[route].get.parameters!.find((p) => p.name === parameter.name)!;
          // The contract's ScanType is shared by both families; an application is never scanned with sbom_scan.
          const expected = route.startsWith('/api/v1/applications/') && parameter.name === 'scan_type' ? published.filter((t) => applicationTypes.includes(t as never)) : published;
          assert.deepEqual(new Set(enumOf(ours, mine.schema)), new Set(expected), `${route} ${parameter.name}`);
        }
      }
    }
  });

  test('a value a filter does not know is a 422 at query.<name> listing the values it takes', async () => {
    let walked = 0;
    for (const [route, methods] of Object.entries(ours.paths)) {
      if (!(route in EXPECTED)) continue;
      for (const parameter of methods.get?.parameters ?? []) {
        const values = enumOf(ours, parameter.schema);
        if (parameter.in !== 'query' || !values) continue;
        walked++;
        for (const wrong of ['semgrep', 'finding_created', 'nope']) {
          const res = await h.call('GET', `${urlOf(route)}?${parameter.name}=${wrong}`);
          expectValidationError(res, ['query', parameter.name], 'enum');
          const entry = res.json().detail.find((e: { loc: string[] }) => e.loc[1] === parameter.name);
          // The applications family's published validation error carries no input.
          if ('input' in entry) assert.equal(entry.input, wrong);
          for (const value of values) assert.ok(entry.msg.includes(`'${value}'`), `${route} ${parameter.name}: ${entry.msg} lacks ${value}`);
        }
        // Each known value is taken, in any case.
        for (const value of values) {
          expectStatus(await h.call('GET', `${urlOf(route)}?${parameter.name}=${value}`), 200);
          expectStatus(await h.call('GET', `${urlOf(route)}?${parameter.name}=${value.toUpperCase()}`), 200);
        }
      }
    }
    assert.equal(walked, Object.values(EXPECTED).reduce((n, filters) => n + Object.keys(filters).length, 0));
  });
});

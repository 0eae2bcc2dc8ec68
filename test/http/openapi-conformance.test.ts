import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createHarness, type Harness } from '../support/api.ts';
import { CONTRACT_FIXTURES_DIR } from '../support/contract.ts';

// The published v1 contract is what existing clients are written against. The generated document must
// offer every contract operation with the same success and 422 statuses, and every response schema
// must carry the contract's property names, types, nullability and required lists.

type Schema = Record<string, any>;
type Doc = { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, Schema> } };

// test/fixtures/contract holds copies of the published documents (`npm run contract:sync` refreshes them,
// test/http/contract-fixtures.test.ts checks them against the published folder when it is present).
const CONTRACT_DIR = CONTRACT_FIXTURES_DIR;

/** Properties Bulwark adds on purpose, each for a reason given beside it. */
const ALLOWED_EXTRA: Record<string, string[]> = {
  // Spec §2: a finding "has a scan batch id (`scan_batch_id`)"; the source repository, lines, commit and a
  // masked excerpt locate it; a deep scan's finding says how many model verification runs confirmed it,
  // and a secrets finding whether its provider accepted the credential (live validity checks); a problem
  // two scan types find is one finding, which names every type that detected it; a finding imported from another
  // tool's SARIF log names that tool.
  PublicFindingResponse: ['scan_batch_id', 'source_repo', 'start_line', 'end_line', 'commit_sha', 'snippet', 'confidence', 'validity', 'detected_by', 'tool'],
  PublicScanFindingSummary: ['source_repo', 'start_line', 'end_line', 'commit_sha', 'snippet'],
  // The reason a person gave with a status change.
  PublicFindingEventResponse: ['comment'],
  // One server serves both families' clients, so the balance carries both unit counters.
  PublicQuotaBalanceResponse: ['repositories', 'applications'],
  // What a fix run leaves to the user, what it did about each finding, and the step a running fix is on.
  PublicFixResponse: ['notes', 'finding_outcomes'],
  PublicFixProgressResponse: ['current_step'],
  // A dependency scan whose vulnerability records are missing or stale says so rather than a silent all-clear.
  PublicScanBatchResponse: ['warnings'],
  PublicScanProgressResponse: ['warnings'],
};

function resolve(doc: Doc, schema: Schema): Schema {
  let current = schema;
  while (current && current.$ref) {
    const name = String(current.$ref).split('/').pop()!;
    current = doc.components?.schemas?.[name] ?? (doc as any)[name];
    assert.ok(current, `unresolvable $ref ${schema.$ref}`);
  }
  return current;
}

function typesOf(doc: Doc, schema: Schema): string[] {
  const s = resolve(doc, schema);
  if (s.anyOf || s.oneOf) return [...new Set<string>((s.anyOf ?? s.oneOf).flatMap((x: Schema) => typesOf(doc, x)))].sort();
  if (Array.isArray(s.type)) return [...s.type].sort();
  if (s.type) return [s.type];
  if (s.enum) return ['string'];
  if (s.properties) return ['object'];
  return ['any'];
}

function nonNull(doc: Doc, schema: Schema): Schema {
  const s = resolve(doc, schema);
  const branches = s.anyOf ?? s.oneOf;
  if (!branches) return s;
  const real = branches.map((b: Schema) => resolve(doc, b)).filter((b: Schema) => b.type !== 'null');
  return real.length === 1 ? real[0] : s;
}

function compareSchemas(where: string, contractDoc: Doc, contract: Schema, oursDoc: Doc, ours: Schema, problems: string[]) {
  const c = nonNull(contractDoc, contract);
  const o = nonNull(oursDoc, ours);
  const cTypes = typesOf(contractDoc, contract);
  const oTypes = typesOf(oursDoc, ours);
  if (!cTypes.includes('any') && JSON.stringify(cTypes) !== JSON.stringify(oTypes)) {
    problems.push(`${where}: type ${JSON.stringify(oTypes)}, contract ${JSON.stringify(cTypes)}`);
    return;
  }
  if (c.properties) {
    const title: string = c.title ?? '';
    const name = Object.keys(ALLOWED_EXTRA).find((k) => title === k || title.startsWith(k)) ?? '';
    const cProps = Object.keys(c.properties);
    const oProps = Object.keys(o.properties ?? {});
    for (const prop of cProps) {
      if (!oProps.includes(prop)) problems.push(`${where}: missing property ${prop}`);
      else compareSchemas(`${where}.${prop}`, contractDoc, c.properties[prop], oursDoc, o.properties[prop], problems);
    }
    const extra = oProps.filter((p) => !cProps.includes(p) && !(ALLOWED_EXTRA[name] ?? []).includes(p));
    if (extra.length) problems.push(`${where}: properties not in the contract: ${extra.join(', ')}`);
    const cRequired = [...(c.required ?? [])].sort();
    const oRequired = [...(o.required ?? [])].filter((p: string) => cProps.includes(p)).sort();
    if (JSON.stringify(cRequired) !== JSON.stringify(oRequired)) {
      problems.push(`${where}: required ${JSON.stringify(oRequired)}, contract ${JSON.stringify(cRequired)}`);
    }
  }
  if (c.items) compareSchemas(`${where}[]`, contractDoc, c.items, oursDoc, o.items ?? {}, problems);
}

function jsonSchemaOf(doc: Doc, response: any): Schema | undefined {
  const content = response?.content?.['application/json'];
  return content?.schema ? resolve(doc, content.schema) : undefined;
}

describe('generated OpenAPI document matches the published v1 contract', () => {
  let h: Harness;
  let ours: Doc;
  before(async () => {
    h = await createHarness();
    const res = await h.call('GET', '/openapi.json', { key: null });
    assert.equal(res.statusCode, 200);
    ours = res.json();
  });
  after(() => h.close());

  test('it is OpenAPI 3.1', () => {
    assert.match((ours as any).openapi, /^3\.1\./);
  });

  for (const file of ['repositories-family.openapi.json', 'applications-family.openapi.json']) {
    test(`${file}: every operation, status and response schema`, () => {
      const contract: Doc = JSON.parse(fs.readFileSync(path.join(CONTRACT_DIR, file), 'utf8'));
      const problems: string[] = [];
      let operations = 0;
      for (const [route, methods] of Object.entries(contract.paths)) {
        for (const [method, operation] of Object.entries(methods)) {
          operations++;
          const mine = ours.paths[route]?.[method];
          if (!mine) {
            problems.push(`${method.toUpperCase()} ${route}: missing`);
            continue;
          }
          for (const [status, response] of Object.entries<any>(operation.responses)) {
            const where = `${method.toUpperCase()} ${route} ${status}`;
            if (!mine.responses?.[status]) {
              problems.push(`${where}: status not offered`);
              continue;
            }
            const contractSchema = jsonSchemaOf(contract, response);
            const ourSchema = jsonSchemaOf(ours, mine.responses[status]);
            if (contractSchema && !ourSchema) problems.push(`${where}: no JSON schema`);
            if (contractSchema && ourSchema) compareSchemas(where, contract, contractSchema, ours, ourSchema, problems);
          }
          for (const status of Object.keys(mine.responses ?? {})) {
            if (/^2/.test(status) && !operation.responses[status]) problems.push(`${method.toUpperCase()} ${route}: extra success status ${status}`);
          }
        }
      }
      assert.ok(operations >= 17, `the contract lists ${operations} operations`);
      assert.deepEqual(problems, []);
    });
  }
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { LightMyRequestResponse } from 'fastify';
import type { Unit } from '../../src/core/units.ts';
import type { FindingRow } from '../../src/store/schema.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';

type Loc = (string | number)[];
interface ValidationEntry {
  loc: Loc;
  msg: string;
  type: string;
  input?: unknown;
}

const MIB = 1024 * 1024;
const REPOSITORY_SCAN_TYPES = ['secrets_scan', 'semgrep_scan', 'deep_ai_scan', 'sbom_scan'];
const FINDING_STATUSES = ['open', 'resolved', 'ignored', 'false_positive', 'needs_manual_review'];
const FIX = { title: 'Rotate the AWS key', instructions: 'Move the key to the secret store', source_repo: 'acme/api' };

// ---- the two wire shapes of an error ----

/** FastAPI's HTTPValidationError. The repository family also echoes each `input`; the application family's contract lists only loc, msg and type. */
function isValidationBody(body: unknown): body is { detail: ValidationEntry[] } {
  if (!body || typeof body !== 'object' || !isDeepStrictEqual(Object.keys(body), ['detail'])) return false;
  const { detail } = body as { detail: unknown };
  return (
    Array.isArray(detail) &&
    detail.length > 0 &&
    detail.every(
      (e) =>
        Array.isArray(e.loc) &&
        e.loc.every((part: unknown) => typeof part === 'string' || typeof part === 'number') &&
        typeof e.msg === 'string' &&
        e.msg.length > 0 &&
        typeof e.type === 'string',
    )
  );
}

function isEnvelope(body: unknown): boolean {
  const inner = (body as { detail?: unknown } | null)?.detail as { detail?: unknown; error_code?: unknown } | undefined;
  return typeof inner?.detail === 'string' && typeof inner.error_code === 'string' && inner.error_code !== '';
}

/** The entries of FastAPI's `HTTPValidationError`, after checking the response is one. */
function validationErrors(res: LightMyRequestResponse): ValidationEntry[] {
  assert.equal(res.statusCode, 422, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json();
  assert.ok(isValidationBody(body), `not an HTTPValidationError: ${res.body.slice(0, 300)}`);
  return body.detail;
}

function assertError(errors: ValidationEntry[], loc: Loc, types: string | string[]): ValidationEntry {
  const wanted = [types].flat();
  const match = errors.find((e) => isDeepStrictEqual(e.loc, loc) && wanted.includes(e.type));
  assert.ok(match, `expected ${wanted.join(' or ')} at ${JSON.stringify(loc)}, got ${JSON.stringify(errors).slice(0, 400)}`);
  return match;
}

function assertEnvelope(res: LightMyRequestResponse, status: number, errorCode?: string) {
  assert.equal(res.statusCode, status, res.body.slice(0, 300));
  const body = res.json();
  assert.ok(isEnvelope(body), `not the error envelope: ${res.body.slice(0, 300)}`);
  if (errorCode) assert.equal(body.detail.error_code, errorCode);
}

describe('request validation', () => {
  let h: Harness;
  let org: TestOrg;
  let repo: Unit;
  let app: Unit;
  let finding: FindingRow;
  let R: string;
  let A: string;

  before(async () => {
    // With an agent, any well-formed fix request is runnable; the refusal of unrunnable ones is tested in fixes.test.ts.
    h = await createHarness({ agentConfigured: true });
    org = await h.org('acme');
    repo = await h.unit(org, ['github:acme/api']);
    app = await h.unit(org, ['github:acme/api', 'github:acme/web'], 'storefront');
    finding = await h.finding(repo);
    R = `/api/v1/repositories/${repo.id}`;
    A = `/api/v1/applications/${app.id}`;
  });
  after(() => h.close());

  /** What a write could change: rows, finding statuses and every quota counter's `used`. */
  async function snapshot() {
    const db = h.database.store.db;
    const count = async (table: 'scan_batches' | 'fixes' | 'finding_events') =>
      Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const balance = (await h.call('GET', '/api/v1/quotas/balance')).json();
    return {
      scanBatches: await count('scan_batches'),
      fixes: await count('fixes'),
      findingEvents: await count('finding_events'),
      findingStatuses: await db.selectFrom('findings').select(['id', 'status']).orderBy('id').execute(),
      used: { prs: balance.prs.used, sast_scans: balance.sast_scans.used, deep_ai_scans: balance.deep_ai_scans.used },
    };
  }

  /** Sends a request that must fail validation, checks that it wrote nothing, and returns its errors. */
  async function refused(method: string, url: string, options: Parameters<Harness['call']>[2] = {}) {
    const before = await snapshot();
    const errors = validationErrors(await h.call(method, url, options));
    assert.deepEqual(await snapshot(), before, `${method} ${url} was refused but changed state`);
    return errors;
  }

  const findingUrl = () => `${R}/findings/${finding.id}`;

  describe('bodies that are not a JSON object', () => {
    test('malformed JSON is json_invalid, located in the body', async () => {
      const malformed = ['{"scan_type": "secrets_scan"', "{'scan_type': 'secrets_scan'}", '{"scan_type": "secrets_scan",}', 'scan_type=secrets_scan'];
      for (const body of malformed) {
        for (const [method, url] of [['POST', `${R}/scans`], ['PATCH', findingUrl()], ['POST', `${R}/fixes`]]) {
          const [error, ...rest] = await refused(method, url, { body });
          assert.deepEqual(rest, [], body);
          assert.equal(error.type, 'json_invalid', body);
          assert.equal(error.loc[0], 'body', body);
        }
      }
    });

    test('an array, null, string, number or boolean body is model_attributes_type at ["body"]', async () => {
      for (const body of ['[]', '[{"scan_type":"secrets_scan"}]', 'null', '"secrets_scan"', '42', 'true']) {
        for (const [method, url] of [['POST', `${R}/scans`], ['PATCH', findingUrl()], ['POST', `${A}/fixes`]]) {
          const errors = await refused(method, url, { body });
          assert.equal(errors.length, 1, body);
          assert.deepEqual(errors[0].loc, ['body']);
          assert.equal(errors[0].type, 'model_attributes_type');
          if (url.startsWith(R)) assert.deepEqual(errors[0].input, JSON.parse(body), 'the repository family echoes the input');
        }
      }
    });

    test('an empty or absent body is a missing body', async () => {
      for (const body of ['', undefined]) {
        for (const [method, url] of [['POST', `${R}/scans`], ['POST', `${A}/scans`], ['PATCH', findingUrl()], ['POST', `${R}/fixes`]]) {
          const [error, ...rest] = await refused(method, url, { body });
          assert.deepEqual(rest, []);
          assert.deepEqual([error.loc, error.msg, error.type], [['body'], 'Field required', 'missing'], `${method} ${url} body=${body}`);
        }
      }
    });
  });

  describe('fields', () => {
    test('each missing required field is reported at its location', async () => {
      assertError(await refused('POST', `${R}/scans`, { body: {} }), ['body', 'scan_type'], 'missing');
      assertError(await refused('PATCH', findingUrl(), { body: {} }), ['body', 'status'], 'missing');
      const errors = await refused('POST', `${R}/fixes`, { body: { title: 'only a title' } });
      assertError(errors, ['body', 'instructions'], 'missing');
      assertError(errors, ['body', 'source_repo'], 'missing');
    });

    test('a value of the wrong JSON type is refused, never coerced', async () => {
      assertError(await refused('POST', `${R}/scans`, { body: { scan_type: 5 } }), ['body', 'scan_type'], ['enum', 'string_type']);
      assertError(await refused('POST', `${R}/fixes`, { body: { ...FIX, title: 5 } }), ['body', 'title'], 'string_type');
      assertError(await refused('POST', `${R}/fixes`, { body: { ...FIX, finding_ids: finding.id } }), ['body', 'finding_ids'], 'list_type');
      assertError(await refused('PATCH', findingUrl(), { body: { status: ['resolved'] } }), ['body', 'status'], ['enum', 'string_type']);
    });

    test('an unknown enum value is refused on every enum, naming the allowed values', async () => {
      const cases: [string, string, Parameters<Harness['call']>[2], Loc, string[]][] = [
        ['POST', `${R}/scans`, { body: { scan_type: 'full_scan' } }, ['body', 'scan_type'], REPOSITORY_SCAN_TYPES],
        ['GET', `${R}/scans?scan_type=full_scan`, {}, ['query', 'scan_type'], REPOSITORY_SCAN_TYPES],
        ['GET', `${A}/scans?scan_type=full_scan`, {}, ['query', 'scan_type'], REPOSITORY_SCAN_TYPES.slice(0, 3)],
        ['PATCH', findingUrl(), { body: { status: 'closed' } }, ['body', 'status'], FINDING_STATUSES],
        ['POST', `${R}/fixes`, { body: { ...FIX, source_repo_provider: 'bitbucket' } }, ['body', 'source_repo_provider'], ['github', 'gitlab', 'azure_devops']],
      ];
      for (const [method, url, options, loc, allowed] of cases) {
        const error = assertError(await refused(method, url, options), loc, 'enum');
        for (const value of allowed) assert.ok(error.msg.includes(`'${value}'`), `${error.msg} should name ${value}`);
      }
    });

    test('sbom_scan is refused by the application family and accepted by the repository family', async () => {
      const error = assertError(await refused('POST', `${A}/scans`, { body: { scan_type: 'sbom_scan' } }), ['body', 'scan_type'], 'enum');
      assert.ok(!error.msg.includes('sbom_scan'), error.msg);
      assertError(await refused('GET', `${A}/scans?scan_type=sbom_scan`), ['query', 'scan_type'], 'enum');

      const before = await snapshot();
      const res = await h.call('POST', `${R}/scans`, { body: { scan_type: 'sbom_scan' } });
      assert.equal(res.statusCode, 202, res.body);
      assert.equal(res.json().scan_type, 'sbom_scan');
      const after = await snapshot();
      assert.equal(after.scanBatches, before.scanBatches + 1);
      assert.equal(after.used.sast_scans, before.used.sast_scans + 1);
    });

    test('a fix title of 201 characters is string_too_long; 200 is accepted', async () => {
      const error = assertError(await refused('POST', `${R}/fixes`, { body: { ...FIX, title: 'x'.repeat(201) } }), ['body', 'title'], 'string_too_long');
      assert.equal(error.input, 'x'.repeat(201));

      const before = await snapshot();
      const res = await h.call('POST', `${R}/fixes`, { body: { ...FIX, title: 'x'.repeat(200) } });
      assert.equal(res.statusCode, 201, res.body);
      const after = await snapshot();
      assert.equal(after.fixes, before.fixes + 1);
      assert.equal(after.used.prs, before.used.prs + 1);
    });

    test('a valid JSON body is accepted whatever content type it arrives with', async () => {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
        const res = await h.call('POST', `${R}/scans`, { body: '{"scan_type":"secrets_scan"}', headers: { 'content-type': contentType } });
        assert.equal(res.statusCode, 202, `${contentType}: ${res.body}`);
        assert.equal(res.json().scan_type, 'secrets_scan');
      }
    });

    test('strings holding a NUL character are refused as 422 wherever they appear', async () => {
      assertError(await refused('GET', '/api/v1/repositories/%00'), ['path', 'repository_id'], 'value_error');
      assertError(await refused('GET', `${R}/findings?status=open%00`), ['query', 'status'], 'value_error');
      assertError(await refused('POST', `${R}/fixes`, { body: { ...FIX, finding_ids: ['\u0000'] } }), ['body', 'finding_ids', 0], 'value_error');
    });
  });

  describe('query integers', () => {
    test('limit and skip out of range or unparseable are refused at their location', async () => {
      const cases: [string, string, string][] = [
        ['limit', '0', 'greater_than_equal'],
        ['limit', '201', 'less_than_equal'],
        ['limit', 'ten', 'int_parsing'],
        ['limit', '1.5', 'int_parsing'],
        ['limit', '1e309', 'less_than_equal'],
        ['limit', '9999999999999999999', 'less_than_equal'],
        ['skip', '-1', 'greater_than_equal'],
        ['skip', '1e309', 'less_than_equal'],
        ['skip', '9999999999999999999', 'less_than_equal'],
      ];
      for (const list of ['/api/v1/repositories', `${R}/findings`, `${A}/scans`, '/api/v1/finding-events']) {
        for (const [name, value, type] of cases) {
          assertError(await refused('GET', `${list}?${name}=${value}`), ['query', name], type);
        }
      }
    });
  });

  describe('errors other than validation use the error envelope', () => {
    /** A JSON scan request padded with an ignored field to exactly `size` bytes. */
    function scanBodyOfSize(size: number): string {
      const empty = '{"scan_type":"secrets_scan","padding":""}';
      const text = empty.replace('""', `"${'x'.repeat(size - empty.length)}"`);
      assert.equal(Buffer.byteLength(text), size);
      return text;
    }

    test('a body over 1 MiB is 413 and changes nothing; exactly 1 MiB is accepted', async () => {
      const before = await snapshot();
      assertEnvelope(await h.call('POST', `${R}/scans`, { body: scanBodyOfSize(MIB + 1) }), 413, 'PAYLOAD_TOO_LARGE');
      assertEnvelope(await h.call('POST', `${A}/fixes`, { body: scanBodyOfSize(2 * MIB) }), 413, 'PAYLOAD_TOO_LARGE');
      assert.deepEqual(await snapshot(), before);

      assert.equal((await h.call('POST', `${R}/scans`, { body: scanBodyOfSize(MIB) })).statusCode, 202);
    });

    test('an unknown route or method is 404 NOT_FOUND', async () => {
      assertEnvelope(await h.call('GET', '/api/v1/nope'), 404, 'NOT_FOUND');
      assertEnvelope(await h.call('GET', `${R}/secrets`), 404, 'NOT_FOUND');
      assertEnvelope(await h.call('DELETE', R), 404, 'NOT_FOUND');
      assertEnvelope(await h.call('PUT', `${A}/scans`, { body: { scan_type: 'secrets_scan' } }), 404, 'NOT_FOUND');
    });

    test('a URL the router cannot decode, or an id too long to route, still gets the envelope', async () => {
      assertEnvelope(await h.call('GET', '/api/v1/repositories/%E0%A4%A'), 400);
      assertEnvelope(await h.call('GET', `/api/v1/repositories/${'x'.repeat(10_000)}`), 414);
    });
  });

  describe('hostile inputs never cause a 5xx', () => {
    interface Parameter {
      in: 'path' | 'query';
      name: string;
      schema: { type?: string };
    }
    interface Operation {
      parameters?: Parameter[];
      requestBody?: { content: { 'application/json': { schema: { properties?: Record<string, { type?: string }> } } } };
    }
    interface Probe {
      method: string;
      url: string;
      body?: string;
    }

    const enc = encodeURIComponent;
    const DEEP = '['.repeat(100_000) + ']'.repeat(100_000);
    const HOSTILE_IDS = ['x'.repeat(10_000), enc('../../etc/passwd'), '%00', enc('ünï©ødé-🔥-漢字'), enc("' OR 1=1 --")];
    /** Raw, already percent-encoded query values, by the parameter's schema type. */
    const HOSTILE_QUERY_VALUES: Record<string, string[]> = {
      integer: ['1e309', '9999999999999999999', '-1', '%225%22', 'ten'],
      boolean: ['maybe', '%00'],
      string: ['%00', 'x'.repeat(10_000), enc("' OR 1=1 --"), enc('../../etc/passwd'), enc('ünï©ødé-🔥')],
    };
    /** The same query parameter repeated (an array) or bracketed (a nested object). */
    const QUERY_SHAPES = [(name: string) => `${name}=1&${name}=2`, (name: string) => `${name}[a]=1`];
    const HOSTILE_BODIES = ['', 'null', '[]', '"text"', '{"scan_type":', DEEP];
    /** JSON fragments put in place of one field of an otherwise valid body (wrapped in [] for list fields). */
    const HOSTILE_FIELD_VALUES = ['{"$ne":null}', '"\\u0000"', '1e309', JSON.stringify('x'.repeat(10_000)), DEEP];
    const VALID_BODIES: Record<string, Record<string, unknown>> = {
      scans: { scan_type: 'secrets_scan' },
      findings: { status: 'open' },
      fixes: FIX,
      refine: { instructions: 'Also add a regression test' },
      'pull-requests': {},
      'sarif-imports': { sarif: { version: '2.1.0', runs: [{ tool: { driver: { name: 'Sweep' } }, results: [] }] }, commit_sha: 'a'.repeat(40) },
    };

    /** Real ids of every kind, per family, so requests reach the handlers and the database. */
    async function realIds(unit: Unit, base: string): Promise<Record<string, string>> {
      const scan = await h.call('POST', `${base}/scans`, { body: { scan_type: 'secrets_scan' } });
      const fix = await h.call('POST', `${base}/fixes`, { body: FIX });
      assert.equal(scan.statusCode, 202, scan.body);
      assert.equal(fix.statusCode, 201, fix.body);
      return {
        repository_id: unit.id,
        application_id: unit.id,
        scan_id: scan.json().batch_id,
        finding_id: (await h.finding(unit)).id,
        fix_id: fix.json().id,
      };
    }

    /** The inputs for one documented operation: hostile ids, query values and bodies. */
    function probesFor(method: string, path: string, operation: Operation, ids: Record<string, string>): Probe[] {
      const parameters = operation.parameters ?? [];
      const pathNames = parameters.filter((p) => p.in === 'path').map((p) => p.name);
      const fill = (value: (name: string, index: number) => string) =>
        path.replace(/\{(\w+)\}/g, (_, name: string) => value(name, pathNames.indexOf(name)));
      const url = fill((name) => ids[name]);
      const properties = operation.requestBody?.content['application/json'].schema.properties;
      const validBody = properties && VALID_BODIES[path.split('/').filter((s) => !s.startsWith('{')).at(-1)!];
      const valid = validBody && JSON.stringify(validBody);
      const probes: Probe[] = [];

      // Ids: the only id, or every id below a real parent.
      if (pathNames.length) {
        for (const id of HOSTILE_IDS) {
          probes.push({ method, url: fill((name, i) => (i === 0 && pathNames.length > 1 ? ids[name] : id)), body: valid });
        }
      }
      // Query values, typed by the parameter's schema; all string filters of the route at once.
      const query = parameters.filter((p) => p.in === 'query');
      for (const [type, values] of Object.entries(HOSTILE_QUERY_VALUES)) {
        const names = query.filter((p) => p.schema.type === type).map((p) => p.name);
        if (!names.length) continue;
        const queries = [...values.map((v) => names.map((n) => `${n}=${v}`).join('&')), ...QUERY_SHAPES.map((shape) => names.map(shape).join('&'))];
        for (const q of queries) probes.push({ method, url: `${url}?${q}` });
      }
      // Bodies: whole hostile bodies, then each field of a valid body replaced by a hostile value.
      if (properties) {
        for (const body of HOSTILE_BODIES) probes.push({ method, url, body });
        for (const [field, schema] of Object.entries(properties)) {
          for (const value of HOSTILE_FIELD_VALUES) {
            const fragment = schema.type === 'array' ? `[${value}]` : value;
            probes.push({ method, url, body: JSON.stringify({ ...validBody, [field]: '\u0001' }).replace('"\\u0001"', fragment) });
          }
        }
      }
      return probes;
    }

    /** Why a response breaks the wire contract, or undefined when it keeps it. */
    function wireProblem(res: LightMyRequestResponse): string | undefined {
      if (res.statusCode >= 500) return `status ${res.statusCode}`;
      let body: unknown;
      try {
        body = res.json();
      } catch {
        return `status ${res.statusCode} with a body that is not JSON`;
      }
      if (res.statusCode === 422 && !isValidationBody(body)) return 'a 422 that is not an HTTPValidationError';
      if (res.statusCode >= 400 && res.statusCode !== 422 && !isEnvelope(body)) return `a ${res.statusCode} outside the error envelope`;
      return undefined;
    }

    test('every documented operation of both families answers below 500, in JSON, in the contract shapes', async () => {
      const spec = (await h.call('GET', '/openapi.json')).json() as { paths: Record<string, Record<string, Operation>> };
      const operations = Object.entries(spec.paths)
        .filter(([path]) => path.startsWith('/api/v1/'))
        .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })));
      assert.ok(operations.length >= 37, `the v1 contract has 37 operations; the document lists ${operations.length}`);
      const listed = new Set(operations.map((o) => `${o.method} ${o.path}`));
      for (const deepest of ['POST /api/v1/repositories/{repository_id}/fixes/{fix_id}/refine', 'POST /api/v1/applications/{application_id}/fixes/{fix_id}/pull-requests']) {
        assert.ok(listed.has(deepest), `${deepest} is swept`);
      }

      const ids = { repositories: await realIds(repo, R), applications: await realIds(app, A) };
      const probes = operations.flatMap(({ method, path, operation }) =>
        probesFor(method, path, operation, path.startsWith('/api/v1/applications') ? ids.applications : ids.repositories),
      );
      assert.ok(probes.length >= 300 && probes.length <= 600, `a bounded sweep: ${probes.length} requests`);

      const problems: string[] = [];
      const statuses = new Set<number>();
      for (const probe of probes) {
        const res = await h.call(probe.method, probe.url, { body: probe.body });
        statuses.add(res.statusCode);
        const problem = wireProblem(res);
        if (problem) problems.push(`${probe.method} ${probe.url.slice(0, 120)} ${probe.body?.slice(0, 60) ?? ''} → ${problem}`);
      }
      assert.deepEqual(problems, []);
      // The inputs reached handlers and the database, not only the validator or the auth hook.
      for (const status of [200, 404, 422]) assert.ok(statuses.has(status), `no ${status} among ${[...statuses]}`);
      assert.ok(!statuses.has(401) && !statuses.has(403), `the sweep's key was refused: ${[...statuses]}`);
    });
  });
});

import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { revokeApiKey } from '../../src/core/api-keys.ts';
import { SCOPES, type Scope } from '../../src/core/scopes.ts';
import type { Unit } from '../../src/core/units.ts';
import { newId } from '../../src/ids.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';

// ---------------------------------------------------------------------------------------------------
// What a route addresses, and the table of every route with the scope that guards it.

/** A unit and one finding, scan batch and fix of it: everything a route path can name. */
interface Target {
  unit: Unit;
  finding: string;
  scan: string;
  fix: string;
}
type Child = 'finding' | 'scan' | 'fix';

interface Route {
  method: 'GET' | 'POST' | 'PATCH';
  path: (t: Target) => string;
  body?: (t: Target) => unknown;
  scope: Scope;
  /** What the route looks up in the caller's organization; undefined for organization-wide routes. */
  addresses?: 'unit' | Child;
  /** The answer to a key holding only `scope`, on a fixture whose fix is still pending. */
  ok: number;
}

const ORG_ROUTES: Route[] = ['/me', '/quotas/balance', '/finding-events', '/repositories', '/applications'].map((path) => ({
  method: 'GET',
  path: () => `/api/v1${path}`,
  scope: 'read',
  ok: 200,
}));

const fixBody = (t: Target) => ({
  title: 'Rotate the leaked key',
  instructions: 'Read the key from the environment instead',
  source_repo: t.unit.sources[0].full_name,
  finding_ids: [t.finding],
});

function familyRoutes(collection: 'repositories' | 'applications'): Route[] {
  const at = (suffix: (t: Target) => string) => (t: Target) => `/api/v1/${collection}/${t.unit.id}${suffix(t)}`;
  const read = (suffix: (t: Target) => string, addresses: Route['addresses']): Route => ({
    method: 'GET',
    path: at(suffix),
    scope: 'read',
    addresses,
    ok: 200,
  });
  const fixAction = (action: string, scope: Scope, ok: number, body?: unknown): Route => ({
    method: 'POST',
    path: at((t) => `/fixes/${t.fix}/${action}`),
    body: body === undefined ? undefined : () => body,
    scope,
    addresses: 'fix',
    ok,
  });
  return [
    read(() => '', 'unit'),
    read(() => '/scans', 'unit'),
    read((t) => `/scans/${t.scan}`, 'scan'),
    read((t) => `/scans/${t.scan}/progress`, 'scan'),
    read((t) => `/scans/${t.scan}/results`, 'scan'),
    read(() => '/findings', 'unit'),
    read((t) => `/findings/${t.finding}`, 'finding'),
    read(() => '/fixes', 'unit'),
    read((t) => `/fixes/${t.fix}`, 'fix'),
    read((t) => `/fixes/${t.fix}/diff`, 'fix'),
    read((t) => `/fixes/${t.fix}/progress`, 'fix'),
    { method: 'POST', path: at(() => '/scans'), body: () => ({ scan_type: 'secrets_scan' }), scope: 'scan:write', addresses: 'unit', ok: 202 },
    {
      method: 'PATCH',
      path: at((t) => `/findings/${t.finding}`),
      body: () => ({ status: 'ignored' }),
      scope: 'finding:write',
      addresses: 'finding',
      ok: 200,
    },
    // Names the finding in its body rather than its path.
    { method: 'POST', path: at(() => '/fixes'), body: fixBody, scope: 'fix:write', addresses: 'finding', ok: 201 },
    ...(collection === 'repositories'
      ? [fixAction('refine', 'fix:write', 409, { instructions: 'Also add a test' }), fixAction('cancel', 'fix:write', 200)]
      : []),
    fixAction('pull-requests', 'pr:write', 409, {}),
  ];
}

const FAMILY_ROUTES = { repositories: familyRoutes('repositories'), applications: familyRoutes('applications') };

const PLACEHOLDER = { unit: { id: '{id}' }, finding: '{finding_id}', scan: '{scan_id}', fix: '{fix_id}' } as unknown as Target;
const title = (route: Route) => `${route.method} ${route.path(PLACEHOLDER)}`;

// ---------------------------------------------------------------------------------------------------
// Small helpers shared by the suites below.

function send(h: Harness, route: Route, target: Target, key: string | null) {
  return h.call(route.method, route.path(target), { key, body: route.body?.(target) });
}

/** The contract's error envelope: `{"detail":{"detail":"<sentence>","error_code":"<CODE>"}}` and nothing else. */
function assertError(res: LightMyRequestResponse, status: number, errorCode: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['detail']);
  assert.deepEqual(Object.keys(body.detail).sort(), ['detail', 'error_code']);
  assert.equal(body.detail.error_code, errorCode);
  assert.equal(typeof body.detail.detail, 'string');
  assert.ok(body.detail.detail.length > 0);
}

/** Everything a refused request must leave untouched, quota credits included. */
async function snapshot(h: Harness) {
  const db = h.database.store.db;
  const count = async (table: 'scan_batches' | 'scans' | 'fixes' | 'fix_findings' | 'fix_refinements' | 'fix_pull_requests' | 'finding_events') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  return {
    scan_batches: await count('scan_batches'),
    scans: await count('scans'),
    fixes: await count('fixes'),
    fix_findings: await count('fix_findings'),
    fix_refinements: await count('fix_refinements'),
    fix_pull_requests: await count('fix_pull_requests'),
    finding_events: await count('finding_events'),
    findings: await db.selectFrom('findings').select(['id', 'status', 'updated_at']).orderBy('id').execute(),
    fix_states: await db.selectFrom('fixes').select(['id', 'status', 'updated_at']).orderBy('id').execute(),
    quota_used: await db.selectFrom('quota_usage').select(['org_id', 'quota_type', 'used']).orderBy('org_id').orderBy('quota_type').execute(),
  };
}

/** A unit of `org` with one finding, one scan batch and one pending fix, all made through the API. */
async function fixture(h: Harness, org: TestOrg, source: string): Promise<Target> {
  const unit = await h.unit(org, [source]);
  const finding = await h.finding(unit);
  const scan = await h.call('POST', `/api/v1/repositories/${unit.id}/scans`, { key: org.key, body: { scan_type: 'secrets_scan' } });
  assert.equal(scan.statusCode, 202, scan.body);
  const fix = await h.call('POST', `/api/v1/repositories/${unit.id}/fixes`, {
    key: org.key,
    body: fixBody({ unit, finding: finding.id, scan: '', fix: '' }),
  });
  assert.equal(fix.statusCode, 201, fix.body);
  return { unit, finding: finding.id, scan: scan.json().batch_id, fix: fix.json().id };
}

const ids = (res: LightMyRequestResponse, field = 'id'): string[] => {
  assert.equal(res.statusCode, 200, res.body);
  return res.json().items.map((item: Record<string, string>) => item[field]);
};

// ---------------------------------------------------------------------------------------------------

describe('authentication: every /api/v1 request needs a valid, live key', () => {
  let h: Harness;
  let org: TestOrg;
  let unit: Unit;
  before(async () => {
    h = await createHarness();
    org = await h.org('acme');
    unit = await h.unit(org, ['github:acme/api@main']);
  });
  after(() => h.close());

  /** Routes of different kinds: account, a real unit, an unknown unit, and a write whose body is invalid. */
  const probes = () => [
    { method: 'GET', url: '/api/v1/me' },
    { method: 'GET', url: `/api/v1/repositories/${unit.id}` },
    { method: 'GET', url: `/api/v1/applications/${newId()}` },
    { method: 'POST', url: `/api/v1/repositories/${unit.id}/scans`, body: { scan_type: 'not-a-scan-type' } },
  ];

  async function assertUnauthorized(headers: Record<string, string>) {
    const bodies = new Set<string>();
    for (const probe of probes()) {
      const res = await h.call(probe.method, probe.url, { key: null, headers, body: probe.body });
      assertError(res, 401, 'UNAUTHORIZED');
      bodies.add(res.body);
    }
    assert.equal(bodies.size, 1, 'a 401 reveals nothing about the route or whether the id exists');
  }

  test('a valid key passes, whatever the case of the Bearer scheme', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await h.call('GET', `/api/v1/repositories/${unit.id}`, { key: null, headers: { authorization: `${scheme} ${org.key}` } });
      assert.equal(res.statusCode, 200, `${scheme}: ${res.body}`);
    }
  });

  test('a missing Authorization header is refused with 401', () => assertUnauthorized({}));

  const malformed = {
    'another scheme': () => 'Basic x',
    'the right key under another scheme': () => `Basic ${org.key}`,
    'Bearer with nothing': () => 'Bearer',
    'Bearer with blanks only': () => 'Bearer   ',
    'the key without a scheme': () => org.key,
    'a token not of our key format': () => 'Bearer not-a-bulwark-key',
    'a key of the right prefix but the wrong length': () => `Bearer ${org.key.slice(0, -1)}`,
    'two tokens': () => `Bearer ${org.key} ${org.key}`,
  };
  for (const [name, header] of Object.entries(malformed)) {
    test(`a malformed header is refused with 401: ${name}`, () => assertUnauthorized({ authorization: header() }));
  }

  test('an unknown but well-formed key is refused with 401', async () => {
    const unknown = `bwk_${crypto.randomBytes(30).toString('base64url')}`;
    assert.equal(unknown.length, 44);
    await assertUnauthorized({ authorization: `Bearer ${unknown}` });
  });

  for (const by of ['id', 'visible prefix'] as const) {
    test(`a key revoked by its ${by} is refused with 401 from then on`, async () => {
      const { key, id } = await h.key(org, [...SCOPES], `revoke by ${by}`);
      assert.equal((await h.call('GET', '/api/v1/me', { key })).statusCode, 200);
      const revoked = await revokeApiKey(h.database.store.db, by === 'id' ? id : key.slice(0, 12));
      assert.equal(revoked?.id, id);
      await assertUnauthorized({ authorization: `Bearer ${key}` });
      assert.equal((await h.call('GET', '/api/v1/me', { key: org.key })).statusCode, 200, 'other keys of the organization still work');
    });
  }
});

describe('scopes: a key without the route scope gets 403 INSUFFICIENT_SCOPE and changes nothing', () => {
  let h: Harness;
  const allBut = new Map<Scope, string>();
  const only = new Map<Scope, string>();
  const targets = new Map<string, Target>();
  before(async () => {
    h = await createHarness();
    const org = await h.org('acme');
    for (const scope of SCOPES) {
      allBut.set(scope, (await h.key(org, SCOPES.filter((s) => s !== scope), `all but ${scope}`)).key);
      only.set(scope, (await h.key(org, [scope], `only ${scope}`)).key);
    }
    // One fixture per family: the positive checks cancel and refine its fix.
    // Their routes address a second finding, in a file of its own: a fix of the pending fix's own finding, or of
    // another credential of its file, is refused (FIX_OVERLAPS).
    const withSecondFinding = async (target: Target) => ({ ...target, finding: (await h.finding(target.unit, { file_path: 'src/second.js' })).id });
    targets.set('repositories', await withSecondFinding(await fixture(h, org, 'github:acme/api@main')));
    targets.set('applications', await withSecondFinding(await fixture(h, org, 'github:acme/web@main')));
  });
  after(() => h.close());

  const groups: [string, Route[]][] = [['account and organization-wide', ORG_ROUTES], ...Object.entries(FAMILY_ROUTES)];
  for (const [group, routes] of groups) {
    describe(group, () => {
      for (const route of routes) {
        test(`${title(route)} needs ${route.scope}`, async () => {
          const target = targets.get(group) ?? targets.get('repositories')!;
          const untouched = await snapshot(h);
          const denied = await send(h, route, target, allBut.get(route.scope)!);
          assertError(denied, 403, 'INSUFFICIENT_SCOPE');
          assert.ok(denied.json().detail.detail.includes(`"${route.scope}"`), 'the refusal names the missing scope');
          assert.deepEqual(await snapshot(h), untouched, 'a refused request creates and changes nothing');

          const allowed = await send(h, route, target, only.get(route.scope)!);
          assert.equal(allowed.statusCode, route.ok, `with only ${route.scope}: ${allowed.body}`);
        });
      }
    });
  }
});

describe('isolation: another organization is invisible', () => {
  let h: Harness;
  let orgA: TestOrg;
  let orgB: TestOrg;
  let a: Target;
  let a2: Target;
  let b: Target;
  before(async () => {
    h = await createHarness();
    orgA = await h.org('alpha');
    orgB = await h.org('beta');
    a = await fixture(h, orgA, 'github:alpha/api@main');
    a2 = await fixture(h, orgA, 'github:alpha/web@main');
    b = await fixture(h, orgB, 'github:beta/api@main');
  });
  after(() => h.close());

  /**
   * `target` must answer exactly as `unknown`, an id of the same kind that exists nowhere: 404 NOT_FOUND,
   * the same bytes (once the probed id itself is blanked out), and no change to any data.
   */
  async function assertHiddenLike(route: Route, target: Target, unknown: Target, probedId: string, unknownId: string) {
    const untouched = await snapshot(h);
    const hidden = await send(h, route, target, orgA.key);
    const missing = await send(h, route, unknown, orgA.key);
    assertError(hidden, 404, 'NOT_FOUND');
    assertError(missing, 404, 'NOT_FOUND');
    assert.equal(hidden.body.replaceAll(probedId, '{id}'), missing.body.replaceAll(unknownId, '{id}'));
    assert.deepEqual(await snapshot(h), untouched);
  }

  for (const [family, routes] of Object.entries(FAMILY_ROUTES)) {
    describe(`${family}: ids of another organization answer as unknown ids`, () => {
      for (const route of routes.filter((r) => r.addresses)) {
        test(`${title(route)} with the other organization's ids`, () => {
          const unknown: Target = { unit: { ...b.unit, id: newId() }, finding: newId(), scan: newId(), fix: newId() };
          return assertHiddenLike(route, b, unknown, b.unit.id, unknown.unit.id);
        });
      }
      for (const route of routes.filter((r) => r.addresses && r.addresses !== 'unit')) {
        const child = route.addresses as Child;
        test(`${title(route)} with an own ${family} and the other organization's ${child}`, () => {
          const unknownId = newId();
          return assertHiddenLike(route, { ...a, [child]: b[child] }, { ...a, [child]: unknownId }, b[child], unknownId);
        });
        test(`${title(route)} with the ${child} of another unit of the same organization`, () => {
          const unknownId = newId();
          return assertHiddenLike(route, { ...a, [child]: a2[child] }, { ...a, [child]: unknownId }, a2[child], unknownId);
        });
      }
    });
  }

  test('the other organization still sees its own data (control)', async () => {
    for (const route of FAMILY_ROUTES.repositories.filter((r) => r.method === 'GET')) {
      const res = await send(h, route, b, orgB.key);
      assert.equal(res.statusCode, 200, `${title(route)}: ${res.body}`);
    }
  });

  test('/repositories and /applications list only the caller organization units', async () => {
    for (const collection of ['repositories', 'applications']) {
      const path = `/api/v1/${collection}?include_archived=true`;
      assert.deepEqual(ids(await h.call('GET', path, { key: orgA.key })).sort(), [a.unit.id, a2.unit.id].sort());
      assert.deepEqual(ids(await h.call('GET', path, { key: orgB.key })), [b.unit.id]);
    }
  });

  test('unit lists of findings, scans and fixes hold only that unit items, in both families', async () => {
    for (const collection of ['repositories', 'applications']) {
      const base = `/api/v1/${collection}/${a.unit.id}`;
      assert.deepEqual(ids(await h.call('GET', `${base}/findings`, { key: orgA.key })), [a.finding]);
      assert.deepEqual(ids(await h.call('GET', `${base}/scans`, { key: orgA.key }), 'batch_id'), [a.scan]);
      assert.deepEqual(ids(await h.call('GET', `${base}/fixes`, { key: orgA.key })), [a.fix]);
      // Filters naming the other organization's ids match nothing rather than reaching across.
      assert.deepEqual(ids(await h.call('GET', `${base}/findings?scan_batch_id=${b.scan}`, { key: orgA.key })), []);
      assert.deepEqual(ids(await h.call('GET', `${base}/fixes?finding_id=${b.finding}`, { key: orgA.key })), []);
    }
  });

  test('/finding-events covers only the caller organization', async () => {
    const feed = await h.call('GET', '/api/v1/finding-events?limit=200', { key: orgA.key });
    assert.equal(feed.statusCode, 200, feed.body);
    const events = feed.json().items as { organization_id: string; repository_id: string; finding_id: string }[];
    assert.ok(events.length > 0, 'creating fixes wrote fix_created events');
    assert.deepEqual([...new Set(events.map((e) => e.organization_id))], [orgA.id]);
    assert.deepEqual([...new Set(events.map((e) => e.repository_id))].sort(), [a.unit.id, a2.unit.id].sort());
    assert.equal(feed.json().total, events.length);

    const own = await h.call('GET', '/api/v1/finding-events', { key: orgB.key });
    assert.deepEqual(own.json().items.map((e: { finding_id: string }) => e.finding_id), [b.finding], 'control: B sees its event');
  });

  test('/finding-events filtered by the other organization ids is empty', async () => {
    for (const filter of [`repository_id=${b.unit.id}`, `finding_id=${b.finding}`]) {
      const res = await h.call('GET', `/api/v1/finding-events?${filter}`, { key: orgA.key });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { items: [], total: 0, limit: 100, skip: 0, has_next: false });
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { setUnitArchived, type Unit } from '../../src/core/units.ts';
import { newId } from '../../src/ids.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';

const COLLECTIONS = ['repositories', 'applications'] as const;
const UNIT_FIELDS = ['archived', 'created_at', 'description', 'id', 'name', 'repositories', 'updated_at'];
const REF_FIELDS = ['default_branch', 'full_name', 'html_url', 'provider'];

interface UnitBody {
  id: string;
  archived: boolean;
  repositories: Record<string, unknown>[];
  [field: string]: unknown;
}

interface PageBody {
  items: UnitBody[];
  total: number;
  limit: number;
  skip: number;
  has_next: boolean;
}

function ok<T>(res: LightMyRequestResponse): T {
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as T;
}

/** The FastAPI 422 a bad query value gets: one error, located at `["query", name]`, of the given pydantic type. */
function assertQueryError(res: LightMyRequestResponse, name: string, type: string) {
  assert.equal(res.statusCode, 422, res.body);
  const { detail } = res.json();
  assert.equal(detail.length, 1, res.body);
  assert.deepEqual(detail[0].loc, ['query', name]);
  assert.equal(detail[0].type, type);
  assert.equal(typeof detail[0].msg, 'string');
}

function assertNotFound(res: LightMyRequestResponse) {
  assert.equal(res.statusCode, 404, res.body);
  assert.deepEqual(Object.keys(res.json().detail).sort(), ['detail', 'error_code']);
  assert.equal(res.json().detail.error_code, 'NOT_FOUND');
}

describe('GET /repositories and /applications', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(() => h.close());

  /** Each test gets an organization of its own, so its lists hold exactly the units it made. */
  async function freshOrg() {
    const org = await h.org('acme');
    const list = (collection: string, query = '') => h.call('GET', `/api/v1/${collection}${query}`, { key: org.key });
    return { org, list };
  }

  /** `count` single-repository units, created one after another; oldest first. */
  async function units(org: TestOrg, count: number): Promise<Unit[]> {
    const made: Unit[] = [];
    for (let i = 0; i < count; i++) made.push(await h.unit(org, [`github:acme/service-${i}@main`]));
    return made;
  }

  test('both families list the same units, newest first, with the contract fields', async () => {
    const { org, list } = await freshOrg();
    const repo = await h.unit(org, ['github:acme/api@main'], 'api');
    const app = await h.unit(
      org,
      ['github:acme/web@main', 'gitlab:acme-group/mobile@develop', 'azure_devops:acme/platform/billing@release'],
      'storefront',
    );

    const repositories = ok<PageBody>(await list('repositories'));
    const applications = ok<PageBody>(await list('applications'));
    assert.deepEqual(applications, repositories, 'one unit, two names: the same page under both families');
    assert.deepEqual(
      repositories.items.map((u) => u.id),
      [app.id, repo.id],
    );
    for (const unit of repositories.items) {
      assert.deepEqual(Object.keys(unit).sort(), UNIT_FIELDS);
      for (const ref of unit.repositories) assert.deepEqual(Object.keys(ref).sort(), REF_FIELDS);
      assert.ok(!Number.isNaN(Date.parse(String(unit.created_at))) && !Number.isNaN(Date.parse(String(unit.updated_at))));
    }

    const [storefront, api] = repositories.items;
    assert.deepEqual(api, {
      id: repo.id,
      name: 'api',
      description: null,
      repositories: [{ full_name: 'acme/api', default_branch: 'main', html_url: 'https://github.com/acme/api', provider: 'github' }],
      archived: false,
      created_at: repo.created_at,
      updated_at: repo.updated_at,
    });
    assert.equal(storefront.name, 'storefront');
    assert.deepEqual(storefront.repositories, [
      { full_name: 'acme/web', default_branch: 'main', html_url: 'https://github.com/acme/web', provider: 'github' },
      {
        full_name: 'acme-group/mobile',
        default_branch: 'develop',
        html_url: 'https://gitlab.com/acme-group/mobile',
        provider: 'gitlab',
      },
      {
        full_name: 'acme/platform/billing',
        default_branch: 'release',
        html_url: 'https://dev.azure.com/acme/platform/_git/billing',
        provider: 'azure_devops',
      },
    ]);
  });

  test('GET by id answers in both families with the same object the list shows', async () => {
    const { org, list } = await freshOrg();
    const [unit] = await units(org, 1);
    const [listed] = ok<PageBody>(await list('repositories')).items;
    for (const collection of COLLECTIONS) {
      assert.deepEqual(ok(await h.call('GET', `/api/v1/${collection}/${unit.id}`, { key: org.key })), listed);
    }
  });

  test('GET of an unknown id is 404 NOT_FOUND in both families', async () => {
    const { org } = await freshOrg();
    await units(org, 1);
    for (const collection of COLLECTIONS) {
      assertNotFound(await h.call('GET', `/api/v1/${collection}/${newId()}`, { key: org.key }));
      assertNotFound(await h.call('GET', `/api/v1/${collection}/not-an-id`, { key: org.key }));
    }
  });

  describe('include_archived', () => {
    let org: TestOrg;
    let list: (collection: string, query?: string) => Promise<LightMyRequestResponse>;
    let active: Unit;
    let archived: Unit;
    before(async () => {
      ({ org, list } = await freshOrg());
      [archived, active] = await units(org, 2);
      await setUnitArchived(h.database.store.db, archived.id, true);
    });

    const idsOf = async (collection: string, query?: string) => {
      const page = ok<PageBody>(await list(collection, query));
      assert.equal(page.total, page.items.length);
      return page.items.map((u) => u.id);
    };

    test('archived units are hidden by default and with include_archived=false', async () => {
      for (const collection of COLLECTIONS) {
        assert.deepEqual(await idsOf(collection), [active.id]);
        assert.deepEqual(await idsOf(collection, '?include_archived=false'), [active.id]);
      }
    });

    test('include_archived=true shows them, marked archived', async () => {
      for (const collection of COLLECTIONS) {
        const page = ok<PageBody>(await list(collection, '?include_archived=true'));
        assert.deepEqual(
          page.items.map((u) => [u.id, u.archived]),
          [
            [active.id, false],
            [archived.id, true],
          ],
        );
        assert.equal(page.total, 2);
      }
    });

    test('GET by id still reads an archived unit, with archived: true', async () => {
      for (const collection of COLLECTIONS) {
        const unit = ok<UnitBody>(await h.call('GET', `/api/v1/${collection}/${archived.id}`, { key: org.key }));
        assert.equal(unit.id, archived.id);
        assert.equal(unit.archived, true);
      }
    });

    test('the boolean spellings FastAPI accepts work, as Python clients send them', async () => {
      for (const value of ['true', 'True', '1', 'yes', 'on']) {
        assert.deepEqual(await idsOf('repositories', `?include_archived=${value}`), [active.id, archived.id], value);
      }
      for (const value of ['false', 'False', '0', 'no', 'off']) {
        assert.deepEqual(await idsOf('repositories', `?include_archived=${value}`), [active.id], value);
      }
    });

    test('include_archived=notabool is 422 at ["query","include_archived"]', async () => {
      for (const collection of COLLECTIONS) {
        assertQueryError(await list(collection, '?include_archived=notabool'), 'include_archived', 'bool_parsing');
      }
    });
  });

  describe('pagination', () => {
    /** Even, so walking pages of 2 ends on a full page that must still say has_next false. */
    const TOTAL = 6;
    let list: (collection: string, query?: string) => Promise<LightMyRequestResponse>;
    let newestFirst: string[];
    before(async () => {
      const fresh = await freshOrg();
      list = fresh.list;
      const made = await units(fresh.org, TOTAL);
      newestFirst = made.map((u) => u.id).reverse();
      // Units created in the same instant are where an unstable order would show: give the middle four one timestamp.
      const sameInstant = made.slice(1, 5).map((u) => u.id);
      await h.database.store.db.updateTable('units').set({ created_at: made[1].created_at }).where('id', 'in', sameInstant).execute();
    });

    for (const collection of COLLECTIONS) {
      describe(collection, () => {
        const page = async (query = '') => ok<PageBody>(await list(collection, query));

        test('defaults: limit 50, skip 0, everything on one page', async () => {
          const body = await page();
          assert.deepEqual(Object.keys(body).sort(), ['has_next', 'items', 'limit', 'skip', 'total']);
          assert.deepEqual(
            { ...body, items: body.items.map((u) => u.id) },
            { items: newestFirst, total: TOTAL, limit: 50, skip: 0, has_next: false },
          );
        });

        test('limit=1 gives one item and has_next', async () => {
          const body = await page('?limit=1');
          assert.deepEqual(
            { ...body, items: body.items.map((u) => u.id) },
            { items: newestFirst.slice(0, 1), total: TOTAL, limit: 1, skip: 0, has_next: true },
          );
        });

        test('a page that ends exactly at the total has no next page', async () => {
          const body = await page(`?limit=${TOTAL}`);
          assert.equal(body.items.length, TOTAL);
          assert.equal(body.has_next, false);
        });

        test('limit=200 is accepted', async () => {
          const body = await page('?limit=200');
          assert.equal(body.limit, 200);
          assert.equal(body.items.length, TOTAL);
        });

        test('skip beyond the total gives an empty last page with the total unchanged', async () => {
          for (const skip of [TOTAL, TOTAL + 10]) {
            assert.deepEqual(await page(`?skip=${skip}`), { items: [], total: TOTAL, limit: 50, skip, has_next: false });
          }
        });

        test('walking pages of 2 yields every unit exactly once, newest first', async () => {
          const seen: string[] = [];
          for (let skip = 0; ; skip += 2) {
            const body = await page(`?limit=2&skip=${skip}`);
            assert.equal(body.total, TOTAL);
            seen.push(...body.items.map((u) => u.id));
            assert.equal(body.has_next, seen.length < TOTAL);
            if (!body.has_next) break;
          }
          assert.deepEqual(seen, newestFirst);
        });

        const invalid: [query: string, name: string, type: string][] = [
          ['limit=201', 'limit', 'less_than_equal'],
          ['limit=0', 'limit', 'greater_than_equal'],
          ['limit=-5', 'limit', 'greater_than_equal'],
          ['limit=abc', 'limit', 'int_parsing'],
          ['limit=1.5', 'limit', 'int_parsing'],
          ['skip=-1', 'skip', 'greater_than_equal'],
          ['skip=abc', 'skip', 'int_parsing'],
        ];
        for (const [query, name, type] of invalid) {
          test(`${query} is 422 ${type} at ["query","${name}"]`, async () => {
            assertQueryError(await list(collection, `?${query}`), name, type);
          });
        }
      });
    }
  });
});

// Small assertions and readers shared by the route tests. The harness itself lives in support/api.ts.
import crypto from 'node:crypto';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Harness } from './api.ts';

/**
 * The two route families of the v1 contract: the same unit under two parent names. `findingFields` and
 * `fixFields` are the properties each family's contract declares beyond those both families share.
 */
export const FAMILIES = [
  {
    collection: 'repositories',
    idField: 'repository_id',
    findingFields: ['title'],
    fixFields: ['source_base_commit_sha'],
  },
  {
    collection: 'applications',
    idField: 'application_id',
    findingFields: [],
    fixFields: [],
  },
] as const;

export type FamilyCase = (typeof FAMILIES)[number];

/** Asserts the status (showing the body when it differs) and returns the parsed body. */
export function expectStatus(res: LightMyRequestResponse, status: number) {
  assert.equal(res.statusCode, status, `expected ${status}, got ${res.statusCode}: ${res.body}`);
  return res.json();
}

/** The `{"detail":{"detail","error_code",…}}` envelope with the given status and code; returns the inner detail. */
export function expectApiError(res: LightMyRequestResponse, status: number, errorCode: string) {
  const { detail } = expectStatus(res, status);
  assert.equal(detail.error_code, errorCode);
  assert.equal(typeof detail.detail, 'string');
  return detail;
}

/** A FastAPI-style 422 naming `loc` with the given error type. */
export function expectValidationError(res: LightMyRequestResponse, loc: (string | number)[], type: string) {
  const { detail } = expectStatus(res, 422);
  const entry = (detail as { loc: unknown[]; type: string }[]).find((e) => JSON.stringify(e.loc) === JSON.stringify(loc));
  assert.ok(entry, `no validation error at ${JSON.stringify(loc)} in ${JSON.stringify(detail)}`);
  assert.equal(entry.type, type);
}

/** `url?a=1&b=2`, leaving out undefined values and encoding the rest (a `+` in a time offset included). */
export function withQuery(url: string, query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text ? `${url}?${text}` : url;
}

/** One page of the organization's finding-event feed, as the calling key sees it. */
export async function readEvents(h: Harness, key: string, query: Record<string, string | number | undefined> = {}) {
  return expectStatus(await h.call('GET', withQuery('/api/v1/finding-events', query), { key }), 200);
}

/** How many `prs` credits the organization has used in the current period. */
export async function prsUsed(h: Harness, key: string): Promise<number> {
  return expectStatus(await h.call('GET', '/api/v1/quotas/balance', { key }), 200).prs.used;
}

/** GETs `url` until `done` accepts its JSON body, failing the test after `seconds`. */
export async function pollUntil(h: Harness, url: string, done: (body: any) => boolean, options: { seconds?: number; intervalMs?: number } = {}) {
  const deadline = Date.now() + (options.seconds ?? 60) * 1000;
  for (;;) {
    const body = (await h.call('GET', url)).json();
    if (done(body)) return body;
    assert.ok(Date.now() < deadline, `timed out waiting on ${url}: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}

export const FINISHED_BATCH = ['completed', 'partial_failure', 'failed'];

/** Triggers a scan of a repository and waits for it to end; returns the batch id and its last progress. */
export async function scanRepository(h: Harness, unitId: string, scanType: string) {
  const created = await h.call('POST', `/api/v1/repositories/${unitId}/scans`, { body: { scan_type: scanType } });
  assert.equal(created.statusCode, 202, created.body);
  const batchId: string = created.json().batch_id;
  const progress = await pollUntil(h, `/api/v1/repositories/${unitId}/scans/${batchId}/progress`, (p) => FINISHED_BATCH.includes(p.status));
  return { batchId, progress };
}

/** Polls `probe` every 100 ms until it gives a value; fails naming `what` after `seconds`. */
export async function waitFor<T>(what: string, seconds: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Retires (cancels) the live fixes of `findingIds`, so a test can fix them afresh whatever an earlier test
 * left: a second fix of a live fix's finding is refused (FIX_OVERLAPS, see fix-overlap.test.ts).
 */
export async function retireFixesOf(h: Harness, findingIds: string[]): Promise<void> {
  await h.database.store.db
    .updateTable('fixes')
    .set({ status: 'cancelled' })
    .where('id', 'in', (eb) => eb.selectFrom('fix_findings').select('fix_id').where('finding_id', 'in', findingIds))
    .where('status', 'in', ['pending', 'running', 'completed', 'pr_creation_failed'])
    .execute();
}

/** GitHub's `X-Hub-Signature-256` of a webhook delivery's body under the webhook's secret. */
export const githubSignature = (secret: string, body: string) => `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;

// A stand-in of the console's server side, for looking at the console before the real session routes exist
// (and for pages that need rich data): the real app (buildApp) on a temporary SQLite store, seeded with an
// organization, units, findings, scans and fixes, behind a front that answers /console/api/* and
// /device-authorizations/* from memory as the console API describes, and forwards /api/v1 calls made with the
// session cookie to the app with the organization's key. Run it: node test/browser/support/standin.ts [port]
import http from 'node:http';
import os from 'node:os';
import { createApiKey } from '../../../src/core/api-keys.ts';
import { createOrganization } from '../../../src/core/organizations.ts';
import { SCOPES } from '../../../src/core/scopes.ts';
import { parseSourceSpec } from '../../../src/core/source-repos.ts';
import { addUnit } from '../../../src/core/units.ts';
import { TokenBox } from '../../../src/crypto/token-box.ts';
import { buildApp } from '../../../src/http/app.ts';
import { consoleAssetsPlugin } from '../../../src/http/console-assets.ts';
import { newId, nowIso } from '../../../src/ids.ts';
import { findingRow } from '../../support/finding-rows.ts';
import { createTestDatabase } from '../../support/store.ts';

export const STANDIN_USER = { email: 'ada@example.com', password: 'correct horse battery staple' };

const DIFF = `diff --git a/src/config.js b/src/config.js
index 3b18e51..9c2f6a1 100644
--- a/src/config.js
+++ b/src/config.js
@@ -1,6 +1,6 @@
 const region = 'eu-west-1';
 module.exports = {
-  accessKeyId: 'AKIA****************',
+  accessKeyId: process.env.AWS_ACCESS_KEY_ID,
   region,
   bucket: 'reports',
 };
`;

export async function startStandin(port = 0) {
  const database = await createTestDatabase();
  const db = database.store.db;
  const app = await buildApp({ store: database.store, hasFixer: () => true });
  if (!app.hasRoute({ method: 'GET', url: '/*' })) await app.register(consoleAssetsPlugin);
  await app.ready();

  const org = await createOrganization(db, { name: 'Acme Security', slug: 'acme' });
  const other = await createOrganization(db, { name: 'Globex', slug: 'globex' });
  const { key } = await createApiKey(db, { orgId: org.id, name: 'ci pipeline', scopes: [...SCOPES] });
  const { key: otherKey } = await createApiKey(db, { orgId: other.id, name: 'all', scopes: [...SCOPES] });
  const box = new TokenBox(Buffer.alloc(32, 7));
  const policy = { allowLocal: true, localRoot: os.tmpdir(), allowPrivateHosts: false };
  const api = await addUnit(db, box, { orgId: org.id, name: 'acme/payments-api', sources: [parseSourceSpec('github:acme/payments-api@main')] }, policy);
  await addUnit(db, box, { orgId: org.id, name: 'acme/web-frontend', sources: [parseSourceSpec('github:acme/web-frontend@main')] }, policy);
  await addUnit(db, box, { orgId: org.id, name: 'acme/legacy-billing', sources: [parseSourceSpec('gitlab:acme/legacy-billing@master')] }, policy);
  await db.updateTable('units').set({ archived: 1 }).where('name', '=', 'acme/legacy-billing').execute();
  await addUnit(db, box, {
    orgId: org.id,
    name: 'Checkout platform',
    description: 'Payments API and web frontend',
    sources: [parseSourceSpec('github:acme/payments-api@main'), parseSourceSpec('github:acme/web-frontend@main')],
  }, policy);

  const inject = (method: string, url: string, body?: unknown, apiKey = key) =>
    app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, payload: body === undefined ? undefined : JSON.stringify(body) });

  const scan = (await inject('POST', `/api/v1/repositories/${api.id}/scans`, { scan_type: 'secrets_scan' })).json();
  await inject('POST', `/api/v1/repositories/${api.id}/scans`, { scan_type: 'semgrep_scan' });
  const snippet = "const region = 'eu-west-1';\nmodule.exports = {\n  accessKeyId: 'AKIA****************',\n  region,\n  bucket: 'reports',";
  const rows = [
    findingRow(api, { scan_batch_id: scan.batch_id, snippet, start_line: 1, end_line: 5, anchor: null, title: 'AWS access key', message: 'An AWS access key is committed in src/config.js', severity: 'critical' }),
    findingRow(api, { scan_type: 'semgrep_scan', check_id: 'javascript.express.sql-injection', category: 'sast', title: 'SQL built from request data', message: 'User input flows into a SQL query without parameters', file_path: 'src/routes/orders.js', start_line: 42, end_line: 44, severity: 'high', cwe: '["CWE-89"]', owasp: '["A03:2021"]' }),
    findingRow(api, { scan_type: 'semgrep_scan', check_id: 'javascript.express.open-redirect', category: 'sast', title: 'Open redirect', message: 'A redirect target comes from the query string', file_path: 'src/routes/login.js', start_line: 17, end_line: 17, severity: 'medium', cwe: '["CWE-601"]', owasp: '["A01:2021"]', status: 'needs_manual_review' }),
    findingRow(api, { scan_type: 'sbom_scan', check_id: 'GHSA-rv95-896h-c2vc', category: 'dependency', title: 'express: open redirect in malformed URLs', message: 'express 4.18.2 is affected; fixed in 4.19.2', file_path: 'package-lock.json', start_line: null, end_line: null, severity: 'low', cwe: '["CWE-601"]', owasp: '[]' }),
  ];
  for (const row of rows) await db.insertInto('findings').values(row).execute();
  const fixed = (await inject('POST', `/api/v1/repositories/${api.id}/fixes`, { finding_ids: [rows[0]!.id], title: 'Move the AWS key to the environment', instructions: 'Read the key from the environment', source_repo: 'acme/payments-api', source_scan_branch: 'main' })).json();
  if (fixed.id) {
    const now = nowIso();
    await db.updateTable('fixes').set({ status: 'completed', diff: DIFF, started_at: now, completed_at: now, agent_steps_completed: 3, notes: JSON.stringify(['Set AWS_ACCESS_KEY_ID in the deployment', 'Rotate the committed key']) }).where('id', '=', fixed.id).execute();
  }
  await inject('POST', `/api/v1/repositories/${api.id}/fixes`, { finding_ids: [rows[1]!.id], title: 'Parameterize the orders query', instructions: 'Use placeholders', source_repo: 'acme/payments-api' });
  await inject('PATCH', `/api/v1/repositories/${api.id}/findings/${rows[2]!.id}`, { status: 'needs_manual_review', comment: 'Needs a look from the auth team' });

  // The console API, from memory.
  const user = { id: newId(), email: STANDIN_USER.email, name: 'Ada Lovelace' };
  const organizations = [
    { id: org.id, name: 'Acme Security', slug: 'acme', role: 'owner' },
    { id: other.id, name: 'Globex', slug: 'globex', role: 'member' },
  ];
  const keys = new Map<string, string>([[org.id, key], [other.id, otherKey]]);
  const sessions = new Map<string, string>();
  let failures = 0;
  const apiKeys: Array<Record<string, any>> = [
    { id: newId(), name: 'ci pipeline', prefix: key.slice(0, 12), scopes: [...SCOPES], created_by: { id: user.id, email: user.email }, created_at: nowIso(), last_used_at: nowIso(), expires_at: null, revoked_at: null },
    { id: newId(), name: 'old laptop', prefix: 'bwk_Xy12Ab34', scopes: ['read'], created_by: null, created_at: '2026-01-05T10:00:00Z', last_used_at: null, expires_at: '2026-06-30T00:00:00Z', revoked_at: '2026-03-01T09:00:00Z' },
  ];
  const members = [
    { user, role: 'owner', added_at: '2026-01-02T09:00:00Z' },
    { user: { id: newId(), email: 'grace@example.com', name: 'Grace Hopper' }, role: 'admin', added_at: '2026-02-11T15:30:00Z' },
    { user: { id: newId(), email: 'linus@example.com', name: null }, role: 'viewer', added_at: '2026-04-20T08:10:00Z' },
  ];
  const devices = new Map<string, { user_code: string; client_name: string; status: string; requested_at: string; expires_at: string }>();
  devices.set('WDJB-MJHT', { user_code: 'WDJB-MJHT', client_name: 'Bulwark CLI 1.4.0 on ada-laptop', status: 'pending', requested_at: nowIso(), expires_at: new Date(Date.now() + 15 * 60_000).toISOString() });

  const readBody = (req: http.IncomingMessage) => new Promise<string>((resolve) => { let text = ''; req.on('data', (c) => (text += c)); req.on('end', () => resolve(text)); });
  const send = (res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const error = (res: http.ServerResponse, status: number, code: string, detail: string) => send(res, status, { detail: { detail, error_code: code } });

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const cookie = /bulwark_session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const csrf = cookie ? sessions.get(cookie) : undefined;
    const signedIn = csrf !== undefined;
    const body = await readBody(req);
    const json = body ? JSON.parse(body) : undefined;
    const write = req.method !== 'GET' && req.method !== 'HEAD';
    const session = () => ({ user, csrf_token: csrf, organizations });
    const p = url.pathname;
    if (p === '/console/api/session' && req.method === 'POST') {
      if (failures >= 5) return send(res, 429, { detail: { detail: 'Too many failed sign-ins', error_code: 'RATE_LIMITED' } }, { 'retry-after': '42' });
      if (json?.email !== STANDIN_USER.email || json?.password !== STANDIN_USER.password) { failures++; return error(res, 401, 'UNAUTHORIZED', 'Invalid email or password'); }
      const id = newId();
      sessions.set(id, newId());
      res.setHeader('set-cookie', `bulwark_session=${id}; HttpOnly; SameSite=Strict; Path=/`);
      return send(res, 200, { user, csrf_token: sessions.get(id), organizations });
    }
    if (p.startsWith('/console/api/') || p.startsWith('/device-authorizations/')) {
      if (!signedIn) return error(res, 401, 'UNAUTHORIZED', 'Not signed in');
      if (write && req.headers['x-csrf-token'] !== csrf) return error(res, 403, 'CSRF_FAILED', 'Missing or wrong CSRF token');
      if (p === '/console/api/session') {
        if (req.method === 'GET') return send(res, 200, session());
        sessions.delete(cookie!);
        return send(res, 204);
      }
      if (p === '/console/api/sessions') { sessions.clear(); return send(res, 204); }
      let m = /^\/console\/api\/organizations\/([^/]+)\/api-keys(?:\/([^/]+))?$/.exec(p);
      if (m) {
        if (req.method === 'GET') return send(res, 200, { items: apiKeys });
        if (req.method === 'POST') {
          const secret = `bwk_${newId().replace(/-/g, '')}${newId().replace(/-/g, '').slice(0, 8)}`;
          const created = { id: newId(), name: json.name, prefix: secret.slice(0, 12), scopes: json.scopes, created_by: { id: user.id, email: user.email }, created_at: nowIso(), last_used_at: null, expires_at: json.expires_at ?? null, revoked_at: null };
          apiKeys.unshift(created);
          return send(res, 201, { api_key: created, key: secret });
        }
        const found = apiKeys.find((k) => k.id === m![2]);
        if (!found) return error(res, 404, 'NOT_FOUND', 'No such key');
        found.revoked_at = nowIso();
        return send(res, 200, found);
      }
      m = /^\/console\/api\/organizations\/([^/]+)\/members(?:\/([^/]+))?$/.exec(p);
      if (m) {
        if (req.method === 'GET') return send(res, 200, { items: members });
        if (req.method === 'POST') {
          if (!/@/.test(json.email)) return send(res, 422, { detail: [{ loc: ['body', 'email'], msg: 'must be an email address', type: 'value_error' }] });
          if (json.email.startsWith('nobody')) return error(res, 404, 'NOT_FOUND', `No user has the email ${json.email}`);
          const added = { user: { id: newId(), email: json.email, name: null }, role: json.role, added_at: nowIso() };
          members.push(added);
          return send(res, 201, added);
        }
        const member = members.find((x) => x.user.id === m![2]);
        if (!member) return error(res, 404, 'NOT_FOUND', 'No such member');
        const owners = members.filter((x) => x.role === 'owner').length;
        if (member.role === 'owner' && owners === 1 && (req.method === 'DELETE' || json.role !== 'owner')) return error(res, 409, 'LAST_OWNER', 'The last owner cannot be removed or demoted');
        if (req.method === 'PATCH') { member.role = json.role; return send(res, 200, member); }
        members.splice(members.indexOf(member), 1);
        return send(res, 204);
      }
      m = /^\/device-authorizations\/([^/]+)(?:\/(approve|deny))?$/.exec(p);
      if (m) {
        const device = devices.get(m[1]!);
        if (!device) return error(res, 404, 'NOT_FOUND', 'No such device authorization');
        if (!m[2]) return send(res, 200, device);
        device.status = m[2] === 'approve' ? 'approved' : 'denied';
        return send(res, 200, { status: device.status });
      }
      return error(res, 404, 'NOT_FOUND', `Route ${req.method} ${p} not found`);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'cookie' && name !== 'host') headers[name] = value;
    if (p.startsWith('/api/')) {
      if (!signedIn) return error(res, 401, 'UNAUTHORIZED', 'Not signed in');
      if (write && req.headers['x-csrf-token'] !== csrf) return error(res, 403, 'CSRF_FAILED', 'Missing or wrong CSRF token');
      const orgKey = keys.get(String(req.headers['x-bulwark-organization']));
      if (!orgKey) return error(res, 403, 'FORBIDDEN', 'X-Bulwark-Organization names no organization of yours');
      headers.authorization = `Bearer ${orgKey}`;
    }
    const answer = await app.inject({ method: req.method as 'GET', url: req.url!, headers, payload: body || undefined });
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection') out[name] = String(value);
    res.writeHead(answer.statusCode, out);
    res.end(answer.rawPayload);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    orgId: org.id,
    unitId: api.id,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await app.close();
      await database.cleanup();
    },
  };
}

if (import.meta.main) {
  const standin = await startStandin(Number(process.argv[2] ?? 0));
  console.log(`stand-in console server at ${standin.url} (sign in as ${STANDIN_USER.email} / ${STANDIN_USER.password})`);
}

// Outbound webhooks end to end: admins register endpoints through the console's API, finding events reach
// a loopback HTTPS receiver as Standard Webhooks messages, and every message is checked with the
// independent `standardwebhooks` package, as a consumer would. The dispatcher runs on a clock the tests
// move forward, so retries hours apart take no waiting.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { createUser, setMembership } from '../../src/core/accounts.ts';
import { recordEvent, type EventType } from '../../src/core/finding-events.ts';
import { createEndpoint, MAX_ENDPOINTS_PER_ORG } from '../../src/core/outbound-webhooks.ts';
import type { Role } from '../../src/core/roles.ts';
import { buildApp } from '../../src/http/app.ts';
import { newId } from '../../src/ids.ts';
import { startOutboundWebhooks, type DispatcherOptions, type OutboundWebhookDispatcher } from '../../src/outbound-webhooks/dispatcher.ts';
import { claimDelivery } from '../../src/store/outbound-webhooks.ts';
import type { Database } from '../../src/store/schema.ts';
import { createHarness, testCloneUrlPolicy, testTokenBox, type Harness, type TestOrg } from '../support/api.ts';
import { readEvents } from '../support/helpers.ts';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver does for a path: an HTTP status, or hold the request unanswered. The last one repeats. */
type Answer = number | 'hang' | { status: number; body?: string; headers?: Record<string, string> };

/** An HTTPS endpoint on loopback with a certificate for receiver.test, rebind.test and 127.0.0.1. */
async function startReceiver() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-hooks-tls-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=receiver.test',
    '-addext', 'subjectAltName=DNS:receiver.test,DNS:rebind.test,IP:127.0.0.1', '-keyout', keyFile, '-out', certFile,
  ], { stdio: 'ignore' });
  const cert = fs.readFileSync(certFile);
  const received: Received[] = [];
  const answers = new Map<string, Answer[]>();
  const server = https.createServer({ key: fs.readFileSync(keyFile), cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = req.url ?? '/';
      received.push({ path: url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const queue = answers.get(url) ?? [];
      const answer = (queue.length > 1 ? queue.shift() : queue[0]) ?? 200;
      if (answer === 'hang') return;
      const { status, body, headers } = typeof answer === 'number' ? { status: answer, body: `answer ${answer}`, headers: {} } : answer;
      res.writeHead(status, { 'content-type': 'text/plain', ...headers });
      res.end(body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    cert,
    received,
    url: (host: string, route: string) => `https://${host}:${port}${route}`,
    answer: (route: string, ...list: Answer[]) => answers.set(route, list),
    at: (route: string) => received.filter((r) => r.path === route),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const HOUR = 3_600_000;

describe('outbound webhooks', () => {
  let h: Harness;
  let db: Kysely<Database>;
  /** The same service on the same database, its operator allowing private hosts (the receiver is on loopback). */
  let privateApp: FastifyInstance;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const logLines: string[] = [];
  /** What the dispatchers' clock is ahead of the real one. */
  let offset = 0;
  const clock = () => Date.now() + offset;
  const dispatchers: OutboundWebhookDispatcher[] = [];
  /** Every answer the console's API gave, to look for secrets in. */
  const answers: string[] = [];

  before(async () => {
    const appLog = new PassThrough();
    appLog.on('data', (chunk: Buffer) => logLines.push(chunk.toString('utf8')));
    h = await createHarness({ logStream: appLog });
    db = h.database.store.db;
    privateApp = await buildApp({
      store: h.database.store,
      registration: { tokenBox: testTokenBox, cloneUrlPolicy: { ...testCloneUrlPolicy, allowPrivateHosts: true } },
      logger: { level: 'info', stream: appLog },
    });
    receiver = await startReceiver();
  });
  after(async () => {
    for (const d of dispatchers) await d.stop();
    await privateApp?.close();
    await receiver?.close();
    await h?.close();
  });

  function dispatcher(overrides: Partial<DispatcherOptions> = {}): OutboundWebhookDispatcher {
    const made = startOutboundWebhooks(db, {
      tokenBox: testTokenBox,
      allowPrivateHosts: true,
      log: (message, fields) => logLines.push(`${message} ${JSON.stringify(fields ?? {})}`),
      pollMs: 0,
      timeoutMs: 5_000,
      now: clock,
      lookup: async () => ['127.0.0.1'],
      ca: receiver.cert,
      ...overrides,
    });
    dispatchers.push(made);
    return made;
  }

  let users = 0;
  /** A signed-in member of `org` with `role`, calling the console's API of `app`. */
  async function browser(org: TestOrg, role: Role) {
    const email = `outbound-${role}-${++users}@example.com`;
    const password = 'correct horse battery staple';
    const user = await createUser(db, { email, password });
    await setMembership(db, org.id, user.id, role);
    const session = await h.app.inject({ method: 'POST', url: '/console/api/session', payload: { email, password }, remoteAddress: `10.9.0.${users}` });
    assert.equal(session.statusCode, 200, session.body);
    const headers = { cookie: String(session.headers['set-cookie']).split(';')[0], 'x-csrf-token': session.json().csrf_token, 'x-bulwark-organization': org.id };
    const base = `/console/api/organizations/${org.id}/webhook-endpoints`;
    const call = async (app: FastifyInstance, method: string, url: string, body?: object) => {
      const res = await app.inject({ method: method as 'GET', url: `${base}${url}`, headers, ...(body ? { payload: body } : {}) });
      answers.push(res.body);
      return res;
    };
    return {
      /** On the service that refuses private hosts. */
      strict: (method: string, url: string, body?: object) => call(h.app, method, url, body),
      /** On the one that allows them. */
      call: (method: string, url: string, body?: object) => call(privateApp, method, url, body),
    };
  }

  /** An organization with an admin, and an endpoint of it at `route` on the receiver. */
  async function setUp(name: string, route: string, body: object = {}) {
    const org = await h.org(name);
    const admin = await browser(org, 'admin');
    const made = await admin.call('POST', '', { url: receiver.url('receiver.test', route), description: `${name} endpoint`, ...body });
    assert.equal(made.statusCode, 201, made.body);
    const unit = await h.unit(org, [`github:acme/${name}`]);
    return { org, admin, unit, endpoint: made.json().endpoint, secret: made.json().secret as string };
  }

  async function event(unit: Awaited<ReturnType<Harness['unit']>>, eventType: EventType = 'detected') {
    const finding = await h.finding(unit);
    return recordEvent(db, { finding, eventType, newStatus: 'open', metadata: { note: eventType } });
  }

  /** The message as a consumer reads it: verified with the secret (or it throws), parsed. */
  const verified = (secret: string, message: Received) =>
    new Webhook(secret).verify(message.body, message.headers as Record<string, string>) as { type: string; timestamp: string; data: Record<string, any> };

  const deliveriesOf = async (admin: Awaited<ReturnType<typeof browser>>, endpointId: string) => {
    const res = await admin.call('GET', `/${endpointId}/deliveries`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().items as Record<string, any>[];
  };

  test('registration: admins only, https only, no loopback, private or metadata address, event types from the vocabulary, 20 per organization', async () => {
    const org = await h.org('registration');
    const admin = await browser(org, 'admin');
    const member = await browser(org, 'member');
    assert.equal((await member.strict('POST', '', { url: 'https://hooks.example.test/bulwark' })).statusCode, 403);
    assert.equal((await member.strict('GET', '')).statusCode, 403);

    const refused = async (url: string, why: RegExp) => {
      const res = await admin.strict('POST', '', { url });
      assert.equal(res.statusCode, 422, `${url}: ${res.body}`);
      assert.match(res.body, why, url);
    };
    await refused('http://hooks.example.test/bulwark', /must be an https:\/\/ URL/);
    await refused('https://127.0.0.1:8443/hook', /loopback, private, link-local or metadata address \(127\.0\.0\.1\).*BULWARK_ALLOW_PRIVATE_HOSTS/);
    await refused('https://10.20.30.40/hook', /private/);
    await refused('https://169.254.169.254/latest/meta-data', /metadata/);
    await refused('https://[::1]/hook', /loopback/);
    await refused('https://localhost/hook', /loopback/);
    await refused('https://user:password@hooks.example.test/', /must not carry credentials/);
    assert.equal((await admin.strict('POST', '', { url: 'https://hooks.example.test/a', events: ['detected', 'no_such_event'] })).statusCode, 422);
    assert.equal((await admin.strict('GET', '')).json().items.length, 0);

    // A name that does not resolve from here is left to the check made at every delivery.
    const made = await admin.strict('POST', '', { url: 'https://hooks.example.test/bulwark', events: ['resolved_manual', 'detected'] });
    assert.equal(made.statusCode, 201, made.body);
    assert.deepEqual(made.json().endpoint.events, ['detected', 'resolved_manual']);
    assert.equal(made.json().endpoint.enabled, true);
    // A change of URL is checked the same way.
    assert.equal((await admin.strict('PATCH', `/${made.json().endpoint.id}`, { url: 'https://192.168.1.1/x' })).statusCode, 422);

    for (let i = 1; i < MAX_ENDPOINTS_PER_ORG; i++) {
      await createEndpoint(db, testTokenBox, testCloneUrlPolicy, { orgId: org.id, url: `https://hooks.example.test/${i}`, userId: null });
    }
    const beyond = await admin.strict('POST', '', { url: 'https://hooks.example.test/one-too-many' });
    assert.equal(beyond.statusCode, 409, beyond.body);
    assert.match(beyond.json().detail.detail, /at most 20 webhook endpoints/);
  });

  test('an event arrives signed the Standard Webhooks way, its data as the feed serves it', async () => {
    const { org, admin, unit, endpoint, secret } = await setUp('basic', '/hook/basic');
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
    const d = dispatcher();

    const detected = await event(unit);
    const finding = await h.finding(unit);
    const resolved = await h.call('PATCH', `/api/v1/repositories/${unit.id}/findings/${finding.id}`, { key: org.key, body: { status: 'resolved', comment: 'fixed by hand' } });
    assert.equal(resolved.statusCode, 200, resolved.body);
    assert.equal(await d.tick(), 'ran');

    const messages = receiver.at('/hook/basic');
    assert.equal(messages.length, 3);
    const feed = [
      ...(await readEvents(h, org.key, { finding_id: detected.finding_id })).items,
      ...(await readEvents(h, org.key, { finding_id: finding.id })).items,
    ];
    for (const message of messages) {
      const payload = verified(secret, message);
      const served = feed.find((e: any) => e.id === payload.data.id);
      assert.ok(served, `event ${payload.data.id} is in the feed`);
      assert.deepEqual(payload.data, served);
      assert.equal(payload.type, `finding.${served.event_type}`);
      assert.equal(payload.timestamp, served.event_timestamp);
      assert.equal(message.headers['webhook-id'], served.id);
      assert.match(String(message.headers['webhook-timestamp']), /^\d{10}$/);
      assert.match(String(message.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
      assert.equal(message.headers['content-type'], 'application/json');
      assert.match(String(message.headers['user-agent']), /^Bulwark-Webhooks\//);
    }
    assert.deepEqual(messages.map((m) => verified(secret, m).type).sort(), ['finding.detected', 'finding.resolved_manual', 'finding.status_changed']);
    assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(messages[0]!.body, messages[0]!.headers as Record<string, string>));

    const log = await deliveriesOf(admin, endpoint.id);
    assert.equal(log.length, 3);
    for (const delivery of log) {
      assert.equal(delivery.status, 'delivered');
      assert.equal(delivery.response_status, 200);
      assert.equal(delivery.attempt, 1);
      assert.equal(delivery.error, null);
      assert.equal(delivery.next_attempt_at, null);
      assert.equal(delivery.response_body, 'answer 200');
      assert.ok(Number.isInteger(delivery.latency_ms) && delivery.latency_ms >= 0);
    }
    assert.equal(await d.tick(), 'idle');
    assert.equal(receiver.at('/hook/basic').length, 3);
  });

  test('an endpoint receives only the event types it subscribes to; all of them when it names none', async () => {
    const { admin, unit, endpoint: picky } = await setUp('subscriptions', '/hook/picky', { events: ['resolved_manual'] });
    const all = (await admin.call('POST', '', { url: receiver.url('receiver.test', '/hook/all') })).json().endpoint;
    const d = dispatcher();
    await event(unit, 'detected');
    await event(unit, 'fix_created');
    await event(unit, 'resolved_manual');
    await d.tick();
    const types = (route: string) => receiver.at(route).map((m) => JSON.parse(m.body).type).sort();
    assert.deepEqual(types('/hook/picky'), ['finding.resolved_manual']);
    assert.deepEqual(types('/hook/all'), ['finding.detected', 'finding.fix_created', 'finding.resolved_manual']);
    assert.equal((await deliveriesOf(admin, picky.id)).length, 1);
    assert.equal((await deliveriesOf(admin, all.id)).length, 3);

    const changed = await admin.call('PATCH', `/${picky.id}`, { events: [], description: 'everything now' });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual(changed.json().events, []);
    assert.equal(changed.json().description, 'everything now');
    await event(unit, 'reopened');
    await d.tick();
    assert.deepEqual(types('/hook/picky'), ['finding.reopened', 'finding.resolved_manual']);
  });

  test('after 500s the message is retried with back-off, the same webhook-id each time, until delivered', async () => {
    receiver.answer('/hook/retry', 500, { status: 503, body: 'busy' }, 200);
    const { admin, unit, endpoint, secret } = await setUp('retries', '/hook/retry');
    const d = dispatcher();
    const sent = await event(unit);

    await d.tick();
    let [delivery] = await deliveriesOf(admin, endpoint.id);
    assert.equal(delivery!.status, 'pending');
    assert.equal(delivery!.attempt, 1);
    assert.equal(delivery!.response_status, 500);
    assert.equal(delivery!.error, 'HTTP 500');
    assert.equal(delivery!.response_body, 'answer 500');
    assert.equal(Date.parse(delivery!.next_attempt_at) - Date.parse(delivery!.last_attempt_at), 5_000, 'the first retry: 5 s after the attempt');
    assert.ok((await admin.call('GET', `/${endpoint.id}`)).json().failing_since);

    assert.equal(await d.tick(), 'idle', 'not due yet');
    assert.equal(receiver.at('/hook/retry').length, 1);

    offset += 5_000;
    await d.tick();
    [delivery] = await deliveriesOf(admin, endpoint.id);
    assert.deepEqual([delivery!.status, delivery!.attempt, delivery!.response_status, delivery!.response_body], ['pending', 2, 503, 'busy']);
    assert.equal(Date.parse(delivery!.next_attempt_at) - Date.parse(delivery!.last_attempt_at), 5 * 60_000, 'then 5 minutes');

    offset += 5 * 60_000;
    await d.tick();
    [delivery] = await deliveriesOf(admin, endpoint.id);
    assert.deepEqual([delivery!.status, delivery!.attempt, delivery!.response_status, delivery!.error, delivery!.next_attempt_at], ['delivered', 3, 200, null, null]);
    assert.equal((await admin.call('GET', `/${endpoint.id}`)).json().failing_since, null);

    const messages = receiver.at('/hook/retry');
    assert.equal(messages.length, 3);
    for (const message of messages) {
      assert.equal(message.headers['webhook-id'], sent.id);
      assert.equal(verified(secret, message).data.id, sent.id);
      assert.equal(message.body, messages[0]!.body, 'the body is the same bytes every time');
    }
  });

  test('no redirect is followed, a slow endpoint is cut off, and at most 4 KiB of an answer is kept', async () => {
    receiver.answer('/hook/moved', { status: 302, headers: { location: receiver.url('receiver.test', '/hook/elsewhere') } });
    receiver.answer('/hook/slow', 'hang');
    receiver.answer('/hook/chatty', { status: 200, body: 'x'.repeat(1024 * 1024) });
    const { admin, unit, endpoint: moved } = await setUp('limits', '/hook/moved');
    const slow = (await admin.call('POST', '', { url: receiver.url('receiver.test', '/hook/slow') })).json().endpoint;
    const chatty = (await admin.call('POST', '', { url: receiver.url('receiver.test', '/hook/chatty') })).json().endpoint;
    await event(unit);
    await dispatcher({ timeoutMs: 300 }).tick();

    const [redirected] = await deliveriesOf(admin, moved.id);
    assert.deepEqual([redirected!.status, redirected!.response_status, redirected!.error], ['pending', 302, 'HTTP 302']);
    assert.equal(receiver.at('/hook/elsewhere').length, 0);
    const [cut] = await deliveriesOf(admin, slow.id);
    assert.deepEqual([cut!.status, cut!.response_status, cut!.error], ['pending', null, 'no answer within 0.3 s']);
    const [long] = await deliveriesOf(admin, chatty.id);
    assert.equal(long!.status, 'delivered');
    assert.equal(long!.response_body.length, 4096);
    for (const endpoint of [moved, slow, chatty]) assert.equal((await admin.call('DELETE', `/${endpoint.id}`)).statusCode, 204);
  });

  test('a target whose name resolves to a private address when delivering is refused, and nothing is sent there', async () => {
    const org = await h.org('rebinding');
    const admin = await browser(org, 'admin');
    // Registered on the service that refuses private hosts: rebind.test does not resolve from here yet.
    const made = await admin.strict('POST', '', { url: receiver.url('rebind.test', '/hook/rebind') });
    assert.equal(made.statusCode, 201, made.body);
    const unit = await h.unit(org, ['github:acme/rebinding']);
    await event(unit);
    // Now the name resolves to loopback.
    await dispatcher({ allowPrivateHosts: false, lookup: async (host) => (host === 'rebind.test' ? ['127.0.0.1'] : []) }).tick();
    const [delivery] = await deliveriesOf(admin, made.json().endpoint.id);
    assert.equal(delivery!.status, 'pending');
    assert.equal(delivery!.response_status, null);
    assert.match(delivery!.error, /webhook URL's host is a loopback, private, link-local or metadata address \(127\.0\.0\.1\)/);
    assert.equal(receiver.at('/hook/rebind').length, 0);
    assert.equal((await admin.call('DELETE', `/${made.json().endpoint.id}`)).statusCode, 204);
  });

  test('the signing secret is shown when made and when rotated only, sealed in the database, never logged; the previous one signs for a day', async () => {
    const { admin, unit, endpoint, secret: first } = await setUp('secrets', '/hook/secret');
    const d = dispatcher();
    const rotated = await admin.call('POST', `/${endpoint.id}/rotate-secret`);
    assert.equal(rotated.statusCode, 200, rotated.body);
    const second = rotated.json().secret as string;
    assert.match(second, /^whsec_/);
    assert.notEqual(second, first);
    // The server dates the grace by its own clock, a day from now; the dispatchers' clock runs ahead by however
    // far the tests before this one moved it, so the grace is restated on that clock.
    const graceEnds = (await db.selectFrom('outbound_webhooks').select('previous_secret_expires_at').where('id', '=', endpoint.id).executeTakeFirstOrThrow()).previous_secret_expires_at;
    assert.ok(Math.abs(Date.parse(graceEnds!) - (Date.now() + 24 * HOUR)) < 60_000, `the previous secret signs for a day: ${graceEnds}`);
    await db.updateTable('outbound_webhooks').set({ previous_secret_expires_at: new Date(clock() + 24 * HOUR).toISOString() }).where('id', '=', endpoint.id).execute();

    await event(unit);
    await d.tick();
    const [message] = receiver.at('/hook/secret');
    assert.equal(String(message!.headers['webhook-signature']).split(' ').length, 2, 'signed with both secrets during the grace');
    verified(second, message!);
    verified(first, message!);

    offset += 25 * HOUR;
    await event(unit);
    await d.tick();
    const later = receiver.at('/hook/secret')[1]!;
    verified(second, later);
    assert.throws(() => verified(first, later), /No matching signature found/);

    await admin.call('GET', '');
    await admin.call('GET', `/${endpoint.id}`);
    await admin.call('GET', `/${endpoint.id}/deliveries`);
    await admin.call('PATCH', `/${endpoint.id}`, { description: 'rotated' });
    const shownIn = (secret: string) => answers.filter((body) => body.includes(secret) || body.includes(secret.slice(6)));
    assert.equal(shownIn(first).length, 1, 'the first secret: in the create answer only');
    assert.equal(shownIn(second).length, 1, 'the second: in the rotate answer only');

    const rows = JSON.stringify([
      await db.selectFrom('outbound_webhooks').selectAll().execute(),
      await db.selectFrom('outbound_webhook_deliveries').selectAll().execute(),
      await db.selectFrom('outbound_webhook_outbox').selectAll().execute(),
      await db.selectFrom('task_leases').selectAll().execute(),
    ]);
    const logs = logLines.join('\n');
    for (const secret of [first, second]) {
      assert.ok(!rows.includes(secret.slice(6)), 'no secret in the database in clear');
      assert.ok(!logs.includes(secret.slice(6)), 'no secret in a log line');
    }
  });

  test('an endpoint failing for 24 hours is disabled with the reason shown; so is one whose messages fail in a row', async () => {
    receiver.answer('/hook/down', 500);
    const { admin, unit, endpoint } = await setUp('outage', '/hook/down');
    const d = dispatcher();
    await event(unit);
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) {
      await d.tick();
      const [delivery] = await deliveriesOf(admin, endpoint.id);
      seen.push(delivery!.attempt);
      if (!delivery!.next_attempt_at) break;
      offset = Math.max(offset, Date.parse(delivery!.next_attempt_at) - Date.now() + 1);
    }
    assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7, 8], 'the first attempt and 7 retries');
    const [failed] = await deliveriesOf(admin, endpoint.id);
    assert.equal(failed!.status, 'failed');
    const shown = (await admin.call('GET', '')).json().items.find((e: any) => e.id === endpoint.id);
    assert.equal(shown.enabled, false);
    assert.match(shown.disabled_reason, /^disabled automatically: every attempt since .* failed \(the last: HTTP 500\)$/);
    assert.ok(Date.parse(shown.disabled_at) - Date.parse(shown.failing_since) >= 24 * HOUR);
    assert.ok(logLines.some((line) => line.includes('outbound webhook disabled') && line.includes(endpoint.id)));

    // A disabled endpoint gets nothing new, and cannot be redelivered to until enabled again.
    await event(unit);
    await d.tick();
    assert.equal((await deliveriesOf(admin, endpoint.id)).length, 1);
    assert.equal((await admin.call('POST', `/${endpoint.id}/deliveries/${failed!.id}/redeliver`)).statusCode, 409);
    const enabled = await admin.call('PATCH', `/${endpoint.id}`, { enabled: true });
    assert.deepEqual([enabled.json().enabled, enabled.json().disabled_reason, enabled.json().disabled_at, enabled.json().failing_since], [true, null, null, null]);

    // Messages in a row that failed every attempt.
    receiver.answer('/hook/flaky', 500);
    const second = await setUp('failing-messages', '/hook/flaky');
    const strict = dispatcher({ retryDelaysMs: [1_000], disableAfterFailedMessages: 2 });
    await event(second.unit);
    await event(second.unit);
    await strict.tick();
    offset += 1_000;
    await strict.tick();
    const flaky = (await second.admin.call('GET', `/${second.endpoint.id}`)).json();
    assert.equal(flaky.enabled, false);
    assert.match(flaky.disabled_reason, /^disabled automatically: 2 messages in a row failed every attempt/);
    assert.deepEqual((await deliveriesOf(second.admin, second.endpoint.id)).map((x) => [x.status, x.attempt]), [['failed', 2], ['failed', 2]]);

    // An admin disabling one says so.
    const off = await second.admin.call('PATCH', `/${second.endpoint.id}`, { enabled: true });
    assert.equal(off.json().enabled, true);
    const manual = await second.admin.call('PATCH', `/${second.endpoint.id}`, { enabled: false });
    assert.deepEqual([manual.json().enabled, manual.json().disabled_reason], [false, 'disabled by an admin']);
  });

  test('redelivery makes one new attempt now, with the same webhook-id; a redelivery that fails is not retried', async () => {
    const { admin, unit, endpoint, secret } = await setUp('redelivery', '/hook/again');
    const d = dispatcher();
    const sent = await event(unit);
    await d.tick();
    const [first] = await deliveriesOf(admin, endpoint.id);
    assert.equal(first!.status, 'delivered');

    const again = await admin.call('POST', `/${endpoint.id}/deliveries/${first!.id}/redeliver`);
    assert.equal(again.statusCode, 202, again.body);
    assert.equal(again.json().status, 'pending');
    assert.ok(again.json().next_attempt_at);
    await d.tick();
    const messages = receiver.at('/hook/again');
    assert.equal(messages.length, 2);
    assert.deepEqual(messages.map((m) => m.headers['webhook-id']), [sent.id, sent.id]);
    assert.equal(verified(secret, messages[1]!).data.id, sent.id);
    let [delivery] = await deliveriesOf(admin, endpoint.id);
    assert.deepEqual([delivery!.status, delivery!.attempt], ['delivered', 2]);

    receiver.answer('/hook/again', 500);
    await admin.call('POST', `/${endpoint.id}/deliveries/${first!.id}/redeliver`);
    await d.tick();
    [delivery] = await deliveriesOf(admin, endpoint.id);
    assert.deepEqual([delivery!.status, delivery!.attempt, delivery!.response_status, delivery!.next_attempt_at], ['failed', 3, 500, null]);
    offset += HOUR;
    await d.tick();
    assert.equal(receiver.at('/hook/again').length, 3);
    // A failed redelivery says nothing about the endpoint's health.
    assert.equal((await admin.call('GET', `/${endpoint.id}`)).json().failing_since, null);

    assert.equal((await admin.call('POST', `/${endpoint.id}/deliveries/${newId()}/redeliver`)).statusCode, 404);
    // An admin of another organization does not find it.
    const stranger = await browser(await h.org('stranger'), 'admin');
    assert.equal((await stranger.call('GET', `/${endpoint.id}/deliveries`)).statusCode, 404);
    assert.equal((await stranger.call('POST', `/${endpoint.id}/deliveries/${first!.id}/redeliver`)).statusCode, 404);
  });

  test('two workers never send the same attempt; a pass claims each delivery first', async () => {
    receiver.answer('/hook/once', 200);
    const { admin, unit, endpoint } = await setUp('workers', '/hook/once');
    const sent = await Promise.all([1, 2, 3, 4, 5].map(() => event(unit)));
    const first = dispatcher();
    const second = dispatcher();
    const outcomes = await Promise.all([first.tick(), second.tick(), first.tick(), second.tick()]);
    assert.ok(outcomes.includes('ran'));
    for (let i = 0; i < 3 && (await deliveriesOf(admin, endpoint.id)).some((x) => x.status !== 'delivered'); i++) await first.tick();
    const ids = receiver.at('/hook/once').map((m) => m.headers['webhook-id']);
    assert.deepEqual([...ids].sort(), sent.map((e) => e.id).sort(), 'each message once');

    // Two claims of one due attempt: exactly one wins.
    const id = newId();
    const now = new Date(clock()).toISOString();
    await db
      .insertInto('outbound_webhook_deliveries')
      .values({
        id, endpoint_id: endpoint.id, event_id: newId(), event_type: 'detected', status: 'pending', attempts: 0, manual: 0, next_attempt_at: now,
        lease_until: null, lease_holder: null, last_attempt_at: null, response_status: null, latency_ms: null, error: null, response_body: null, created_at: now, finished_at: null,
      })
      .execute();
    const until = new Date(clock() + 60_000).toISOString();
    const claims = await Promise.all([claimDelivery(db, id, 0, 'a', now, until), claimDelivery(db, id, 0, 'b', now, until)]);
    assert.equal(claims.filter(Boolean).length, 1);
    await db.deleteFrom('outbound_webhook_deliveries').where('id', '=', id).execute();
  });

  test("an organization's outbox waits while an endpoint has too many deliveries waiting", async () => {
    receiver.answer('/hook/backlog', 500);
    const { org, admin, unit, endpoint } = await setUp('backlog', '/hook/backlog');
    const d = dispatcher({ maxPendingPerEndpoint: 2 });
    await event(unit);
    await event(unit);
    await event(unit);
    await d.tick();
    assert.equal((await deliveriesOf(admin, endpoint.id)).length, 2);
    const waiting = await db.selectFrom('outbound_webhook_outbox').select('event_id').where('org_id', '=', org.id).execute();
    assert.equal(waiting.length, 1);
    receiver.answer('/hook/backlog', 200);
    offset += 5_000;
    await d.tick();
    await d.tick();
    const log = await deliveriesOf(admin, endpoint.id);
    assert.equal(log.length, 3);
    assert.ok(log.every((x) => x.status === 'delivered'), JSON.stringify(log.map((x) => x.status)));
  });

  test('the worker looks for new events by itself, soon after they are written', async () => {
    const { unit } = await setUp('polling', '/hook/polling');
    const poller = dispatcher({ pollMs: 20 });
    const sent = await event(unit);
    const deadline = Date.now() + 10_000;
    while (!receiver.at('/hook/polling').length) {
      assert.ok(Date.now() < deadline, 'the event was delivered within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(receiver.at('/hook/polling')[0]!.headers['webhook-id'], sent.id);
    await poller.stop();
  });

  test('removing an endpoint removes its deliveries; another organization sees none of it', async () => {
    const { admin, unit, endpoint } = await setUp('removal', '/hook/removal');
    await event(unit);
    await dispatcher().tick();
    const other = await browser(await h.org('other'), 'admin');
    assert.equal((await other.call('GET', `/${endpoint.id}`)).statusCode, 404);
    assert.equal((await admin.call('DELETE', `/${endpoint.id}`)).statusCode, 204);
    assert.equal((await admin.call('GET', `/${endpoint.id}`)).statusCode, 404);
    assert.equal((await admin.call('GET', `/${endpoint.id}/deliveries`)).statusCode, 404);
    assert.equal((await admin.call('DELETE', `/${endpoint.id}`)).statusCode, 404);
    assert.equal((await db.selectFrom('outbound_webhook_deliveries').select('id').where('endpoint_id', '=', endpoint.id).execute()).length, 0);
  });
});

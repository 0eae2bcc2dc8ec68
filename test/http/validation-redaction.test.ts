import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { positiveSample } from '../support/secret-samples.ts';

describe('validation errors and log lines never echo a credential', () => {
  let h: Harness;
  let org: TestOrg;
  let unitId: string;
  const lines: string[] = [];

  before(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    h = await createHarness({ logStream: stream });
    org = await h.org('redaction');
    unitId = (await h.unit(org, ['github:acme/redaction@main'])).id;
  });
  after(() => h.close());

  const logged = () => lines.join('\n');

  function assertNowhere(value: string, body: string) {
    assert.ok(!body.includes(value), `the response echoes the credential: ${body}`);
    assert.ok(!logged().includes(value), 'a log line holds the credential');
  }

  test('an API key sent as a body value gets a 422 with the value redacted', async () => {
    const res = await h.call('POST', `/api/v1/repositories/${unitId}/scans`, { body: { scan_type: org.key } });
    assert.equal(res.statusCode, 422, res.body);
    const [problem] = res.json().detail;
    assert.deepEqual(problem.loc, ['body', 'scan_type']);
    assert.equal(problem.type, 'enum');
    assert.equal(problem.input, '[redacted]');
    assertNowhere(org.key, res.body);
  });

  test('an API key in a query parameter or a path segment is neither echoed nor logged', async () => {
    const query = await h.call('GET', `/api/v1/repositories/${unitId}/scans?scan_type=${org.key}&limit=${org.key}`);
    assert.equal(query.statusCode, 422, query.body);
    assert.ok(query.json().detail.length >= 1);
    for (const problem of query.json().detail) assert.equal(problem.input, '[redacted]');
    assertNowhere(org.key, query.body);
    const path = await h.call('GET', `/api/v1/nowhere/${org.key}`);
    assert.equal(path.statusCode, 404);
    assertNowhere(org.key, path.body);
    assert.ok(lines.some((line) => line.includes('[redacted]')), 'the request is still logged, with the key redacted');
    // Percent-encoded, the key is still recognized: neither the body nor the log shows its random part.
    const encoded = await h.call('GET', `/api/v1/repositories/${unitId}/scans?scan_type=${org.key.replace('bwk_', 'bwk%5F')}`);
    assert.equal(encoded.statusCode, 422, encoded.body);
    assertNowhere(org.key.slice(4), encoded.body);
  });

  test('a truncated API key, a provider token, a password beside its name and a key in broken JSON are redacted too', async () => {
    const github = positiveSample(SECRET_RULES.find((r) => r.id === 'github-pat')!, 5);
    const cases: { body: unknown; secret: string }[] = [
      { body: { scan_type: org.key.slice(0, 20) }, secret: org.key.slice(0, 20) },
      { body: { scan_type: github }, secret: github },
      { body: { password: 'Zr8#kq2LmV9xTw4pQ7', scan_type: 12 }, secret: 'Zr8#kq2LmV9xTw4pQ7' },
      { body: `{"scan_type": ${org.key}}`, secret: org.key },
    ];
    for (const { body, secret } of cases) {
      const res = await h.call('POST', `/api/v1/repositories/${unitId}/scans`, { body });
      assert.equal(res.statusCode, 422, res.body);
      assertNowhere(secret, res.body);
    }
  });

  test('ordinary bad values are still echoed, as FastAPI does', async () => {
    const res = await h.call('POST', `/api/v1/repositories/${unitId}/scans`, { body: { scan_type: 'nope' } });
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().detail[0].input, 'nope');
  });
});

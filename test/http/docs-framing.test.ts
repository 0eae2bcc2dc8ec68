import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createHarness, type Harness } from '../support/api.ts';

describe('the /docs pages', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => {
    await h.close();
  });

  test('no other site may frame them: X-Frame-Options DENY and frame-ancestors \'none\', as the console', async () => {
    for (const url of ['/docs', '/docs/', '/docs/static/index.html', '/docs/json']) {
      const res = await h.call('GET', url, { key: null });
      assert.ok(res.statusCode < 400, `${url}: ${res.statusCode}`);
      assert.equal(res.headers['x-frame-options'], 'DENY', url);
      assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/, url);
    }
  });
});

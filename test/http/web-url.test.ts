import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { webUrl } from '../../src/web-url.ts';

// The one check for addresses from outside, used where they are stored and by the console's links.
describe('web URLs', () => {
  test('only absolute http(s) addresses pass', () => {
    for (const ok of ['https://github.com/acme/api/pull/3', 'http://gitlab.internal:8080/x/-/merge_requests/1', 'HTTPS://osv.dev/vulnerability/GHSA-x']) {
      assert.equal(webUrl(ok), ok);
    }
    for (const bad of ['javascript:alert(1)', ' javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', 'data:text/html,x', 'vbscript:x', 'file:///etc/passwd', '/relative', '//evil.example/x', 'https://', '', null, undefined, 42]) {
      assert.equal(webUrl(bad), null, String(bad));
    }
  });
});

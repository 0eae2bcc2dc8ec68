import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signInErrorMessage, SIGN_IN_ERROR_CODES } from '../../console/src/lib/sign-in-errors.ts';
import { safeReturnPath } from '../../src/http/return-path.ts';

test('a destination after signing in is a path of this site, or /', () => {
  for (const [given, expected] of [
    ['/findings', '/findings'],
    ['/orgs/o1/findings?severity=high#top', '/orgs/o1/findings?severity=high#top'],
    ['/a/../b', '/b'],
    ['/caf\u00e9', '/caf%C3%A9'],
  ] as const) {
    assert.equal(safeReturnPath(given), expected, given);
  }
  const refused = [
    '//evil.example', '//evil.example/x', '/\\evil.example', '\\\\evil.example', '/%09/evil.example', '/\t/evil.example',
    '/%0a/evil.example', '/\n/evil.example', '/\r\n/evil.example', '/%0d%0aSet-Cookie:x=1', '/ /evil.example',
    '%2F%2Fevil.example', '/%2F%2Fevil.example', '/%2Fevil.example', '/%5Cevil.example', '/%5C%5Cevil.example',
    '/\u00a0/evil.example', '/\u2028/evil.example', 'javascript:alert(1)', '/javascript:alert(1)\n', 'JaVaScRiPt:alert(1)',
    'https://evil.example/', 'http:/evil.example', 'evil.example', '', ' /findings', '/%zz', '/\u0000x',
    `/${'a'.repeat(3000)}`,
  ];
  for (const given of refused) assert.equal(safeReturnPath(given), '/', JSON.stringify(given));
  for (const given of [undefined, null, 42, ['/findings'], { path: '/x' }]) assert.equal(safeReturnPath(given), '/');
});

test("the sign-in page shows only its own messages for an error code, never the link's text", () => {
  assert.equal(signInErrorMessage(null), null);
  assert.match(signInErrorMessage('unverified_email')!, /not verified your email/);
  const injected = signInErrorMessage('Your account is suspended: call +1 555 0100 now');
  assert.equal(injected, 'Single sign-on did not complete. Try again.');
  assert.equal(signInErrorMessage('toString'), injected, 'only its own codes, not what every object has');
  assert.deepEqual(
    [...SIGN_IN_ERROR_CODES].sort(),
    ['account_disabled', 'no_email', 'provider_refused', 'provider_unreachable', 'sign_in_expired', 'unverified_email'],
  );
});

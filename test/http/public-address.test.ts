// The server's own address as handed to people (device login links) and to an OpenID provider (redirect URI).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { publicAddress } from '../../src/http/public-address.ts';

const request = (protocol: string, host: string) => ({ protocol, host }) as FastifyRequest;

test('without BULWARK_PUBLIC_URL, the address the request reached, with the default port left out', () => {
  assert.equal(publicAddress(request('http', 'scanner.internal:8080'), null, '/device'), 'http://scanner.internal:8080/device');
  assert.equal(publicAddress(request('https', 'scanner.internal:443'), null, '/console/api/oidc/callback'), 'https://scanner.internal/console/api/oidc/callback');
});

test('BULWARK_PUBLIC_URL wins over the request, and a path of its own is kept for every address', () => {
  const publicUrl = 'https://tools.example.com/bulwark';
  assert.equal(publicAddress(request('http', '10.0.0.5:3000'), publicUrl, '/device'), 'https://tools.example.com/bulwark/device');
  assert.equal(publicAddress(request('http', '10.0.0.5:3000'), `${publicUrl}//`, '/console/api/oidc/callback'), 'https://tools.example.com/bulwark/console/api/oidc/callback');
});

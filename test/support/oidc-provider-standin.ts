import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/** Who the stand-in says signed in, and what it gets wrong on purpose. */
export interface StandinPerson {
  sub: string;
  email: string;
  email_verified?: boolean;
  name?: string;
  /** Answer an ID token with another nonce than the one asked for. */
  wrongNonce?: boolean;
}

export interface OidcProviderStandin {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The person the next authorization signs in. */
  signInAs(person: StandinPerson): void;
  /** Every authorization request's parameters, in order. */
  authorizations: URLSearchParams[];
  close(): Promise<void>;
}

/**
 * A loopback OpenID Connect provider for tests: discovery, an authorization endpoint that signs in a
 * scripted person at once, a token endpoint that checks the client's secret and the PKCE verifier and
 * answers an RS256 ID token, and its JWKS.
 */
export async function startOidcProviderStandin(): Promise<OidcProviderStandin> {
  const clientId = 'bulwark-console';
  const clientSecret = crypto.randomBytes(16).toString('hex');
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'standin', alg: 'RS256', use: 'sig' };
  let person: StandinPerson = { sub: 'user-1', email: 'sso@example.com', email_verified: true };
  const codes = new Map<string, { params: URLSearchParams; person: StandinPerson }>();
  const authorizations: URLSearchParams[] = [];
  let issuer = '';

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      });
    }
    if (url.pathname === '/jwks') return json(res, 200, { keys: [jwk] });
    if (url.pathname === '/authorize') {
      authorizations.push(url.searchParams);
      if (url.searchParams.get('client_id') !== clientId) return json(res, 400, { error: 'unauthorized_client' });
      const code = crypto.randomBytes(16).toString('hex');
      codes.set(code, { params: url.searchParams, person });
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      back.searchParams.set('iss', issuer);
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const [id, secret] = basic
        ? Buffer.from(basic, 'base64').toString().split(':').map(decodeURIComponent)
        : [form.get('client_id'), form.get('client_secret')];
      if (id !== clientId || secret !== clientSecret) return json(res, 401, { error: 'invalid_client' });
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!grant || form.get('redirect_uri') !== grant.params.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant' });
      const challenge = crypto.createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url');
      if (challenge !== grant.params.get('code_challenge')) return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
      const { wrongNonce, ...claims } = grant.person;
      const idToken = await new SignJWT({ ...claims, nonce: wrongNonce ? 'not-the-nonce' : grant.params.get('nonce') })
        .setProtectedHeader({ alg: 'RS256', kid: 'standin' })
        .setIssuer(issuer)
        .setAudience(clientId)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
      return json(res, 200, { access_token: crypto.randomBytes(16).toString('hex'), token_type: 'Bearer', expires_in: 300, id_token: idToken });
    }
    json(res, 404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    clientId,
    clientSecret,
    authorizations,
    signInAs(next) {
      person = next;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

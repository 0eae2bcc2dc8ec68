import { byStatus, verdict, type ProviderHttp, type ProviderResponse, type Verdict } from './http.ts';
import { signAzureGet, signStsPost } from './signing.ts';

// One descriptor per provider: which rules' credentials it checks, how to assemble the credential from
// the file (a key ID with its secret, a token with its account or shop), and the provider's cheapest
// read-only call. `prepare` returns a verdict instead when the credential cannot be checked.

/** A credential the detector found, with the file it is in (to find its other half). */
export interface FoundSecret {
  ruleId: string;
  secret: string;
  /** The whole file the credential is in, and where in it. */
  text: string;
  offset: number;
  /** Every credential the detector found in the same file. */
  others: readonly { ruleId: string; secret: string; offset: number }[];
}

export interface PreparedCheck {
  /** What makes the credential (the parts sent); checks of equal identities run once per scan. */
  identity: string[];
  check(http: ProviderHttp): Promise<Verdict>;
}

export interface ProviderCheck {
  id: string;
  name: string;
  rules: readonly string[];
  /** The call, for documentation. */
  endpoint: string;
  prepare(found: FoundSecret): PreparedCheck | Verdict;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

/** The credential of `ruleId` found nearest `found` in its file. */
function nearest(found: FoundSecret, ruleId: string): string | undefined {
  let best: { secret: string; distance: number } | undefined;
  for (const other of found.others) {
    if (other.ruleId !== ruleId) continue;
    const distance = Math.abs(other.offset - found.offset);
    if (!best || distance < best.distance) best = { secret: other.secret, distance };
  }
  return best?.secret;
}

/** The capture of `pattern` nearest `found` in its file (the pattern needs the `g` flag and one group). */
function nearestMatch(found: FoundSecret, pattern: RegExp): string | undefined {
  let best: { value: string; distance: number } | undefined;
  for (const m of found.text.matchAll(pattern)) {
    const distance = Math.abs(m.index - found.offset);
    if (!best || distance < best.distance) best = { value: m[1]!, distance };
  }
  return best?.value;
}

const jsonOf = (response: ProviderResponse): any => {
  try {
    return JSON.parse(response.body);
  } catch {
    return undefined;
  }
};

/**
 * Several regional endpoints for one credential: valid when one accepts it, invalid only when every one
 * refuses it, unknown otherwise.
 */
async function anyRegion(keys: string[], run: (key: string) => Promise<Verdict>): Promise<Verdict> {
  const verdicts: Verdict[] = [];
  for (const key of keys) {
    const v = await run(key);
    if (v.validity === 'valid') return v;
    verdicts.push(v);
  }
  return verdicts.every((v) => v.validity === 'invalid') ? verdict('invalid', `every region refused it (${keys.join(', ')})`) : verdicts.find((v) => v.validity === 'unknown')!;
}

/** A bearer token against one GET endpoint, read the usual way. */
const simpleBearer = (id: string, name: string, rules: string[], path: string, refused: number[] = [401, 403], extra: Record<string, string> = {}): ProviderCheck => ({
  id,
  name,
  rules,
  endpoint: `GET ${path}`,
  prepare: ({ secret }) => ({
    identity: [secret],
    check: async (http) => byStatus(await http.call(id, path, { headers: { ...bearer(secret), ...extra } }), refused),
  }),
});

const DOCKER_HUB_REGISTRIES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com']);
const SLACK_REFUSALS = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired']);
const GOOGLE_INVALID = /API_KEY_INVALID|API key not valid|keyInvalid/;

const dockerHubLogin = (username: string, secret: string): PreparedCheck => ({
  identity: [username, secret],
  check: async (http) =>
    byStatus(
      await http.call('dockerhub', '/v2/auth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identifier: username, secret }),
      }),
      [401, 403],
    ),
});

export const PROVIDERS: readonly ProviderCheck[] = [
  {
    id: 'aws',
    name: 'AWS',
    rules: ['aws-access-key-id', 'aws-secret-access-key'],
    endpoint: 'POST / Action=GetCallerIdentity (STS, SigV4)',
    prepare(found) {
      const keyId = found.ruleId === 'aws-access-key-id' ? found.secret : nearest(found, 'aws-access-key-id');
      const secret = found.ruleId === 'aws-secret-access-key' ? found.secret : nearest(found, 'aws-secret-access-key');
      if (!keyId || !secret) return verdict('unknown', 'no matching access key ID and secret access key in the same file');
      if (!/^(AKIA|ASIA)/.test(keyId)) return verdict('unknown', 'this kind of AWS key ID is not checked');
      const sessionToken = keyId.startsWith('ASIA') ? nearest(found, 'aws-session-token') : undefined;
      if (keyId.startsWith('ASIA') && !sessionToken) return verdict('unknown', 'a temporary key ID without its session token in the same file');
      const keys = { accessKeyId: keyId, secretAccessKey: secret, ...(sessionToken ? { sessionToken } : {}) };
      return {
        identity: [keyId, secret, sessionToken ?? ''],
        async check(http) {
          const body = 'Action=GetCallerIdentity&Version=2011-06-15';
          const url = http.urlOf('aws', '/');
          return byStatus(await http.call('aws', '/', { method: 'POST', headers: signStsPost(url, body, keys), body }));
        },
      };
    },
  },
  {
    id: 'github',
    name: 'GitHub',
    rules: ['github-pat', 'github-fine-grained-pat', 'github-oauth-token', 'github-app-token'],
    endpoint: 'GET /user',
    prepare: ({ secret }) => ({
      identity: [secret],
      async check(http) {
        const response = await http.call('github', '/user', { headers: { ...bearer(secret), 'x-github-api-version': '2022-11-28' } });
        // GitHub answers 401 for a token it does not know; 403 is a known token not allowed /user (an App
        // installation token) unless it is a rate limit.
        if (response.status === 403) {
          if (response.headers.get('x-ratelimit-remaining') === '0' || /rate limit/i.test(response.body)) return verdict('unknown', 'the provider rate-limited the check');
          return verdict('valid', 'GitHub knows the token (HTTP 403: not allowed to read /user)');
        }
        return byStatus(response, [401]);
      },
    }),
  },
  {
    id: 'gitlab',
    name: 'GitLab',
    rules: ['gitlab-pat'],
    endpoint: 'GET /api/v4/personal_access_tokens/self',
    prepare: ({ secret }) => ({
      identity: [secret],
      check: async (http) => byStatus(await http.call('gitlab', '/api/v4/personal_access_tokens/self', { headers: { 'private-token': secret } }), [401]),
    }),
  },
  {
    id: 'slack',
    name: 'Slack',
    rules: ['slack-bot-token', 'slack-user-token', 'slack-legacy-token', 'slack-workspace-token'],
    endpoint: 'POST /api/auth.test',
    prepare: ({ secret }) => ({
      identity: [secret],
      async check(http) {
        const response = await http.call('slack', '/api/auth.test', { method: 'POST', headers: bearer(secret) });
        if (response.status !== 200) return byStatus(response);
        // Slack answers 200 either way; the body says.
        const body = jsonOf(response);
        if (body?.ok === true) return verdict('valid', 'Slack accepted it (auth.test ok)');
        if (SLACK_REFUSALS.has(body?.error)) return verdict('invalid', `Slack refused it (${body.error})`);
        return verdict('unknown', `unexpected auth.test answer${typeof body?.error === 'string' ? ` (${body.error.slice(0, 40)})` : ''}`);
      },
    }),
  },
  {
    id: 'stripe',
    name: 'Stripe',
    rules: ['stripe-secret-key', 'stripe-restricted-key'],
    endpoint: 'GET /v1/balance',
    prepare: ({ secret }) => ({
      identity: [secret],
      async check(http) {
        const response = await http.call('stripe', '/v1/balance', { headers: bearer(secret) });
        // 401 is an unknown key; 403 a restricted key that works but may not read the balance.
        if (response.status === 403) return verdict('valid', 'Stripe knows the key (HTTP 403: not allowed to read the balance)');
        return byStatus(response, [401]);
      },
    }),
  },
  // A project key may lack the models permission (403), which says nothing about the key itself.
  simpleBearer('openai', 'OpenAI', ['openai-api-key'], '/v1/models', [401]),
  {
    id: 'anthropic',
    name: 'Anthropic',
    rules: ['anthropic-api-key'],
    endpoint: 'GET /v1/models (admin keys: GET /v1/organizations/users?limit=1)',
    prepare: ({ secret }) => ({
      identity: [secret],
      check: async (http) =>
        byStatus(
          await http.call('anthropic', secret.startsWith('sk-ant-admin') ? '/v1/organizations/users?limit=1' : '/v1/models', {
            headers: { 'x-api-key': secret, 'anthropic-version': '2023-06-01' },
          }),
          [401],
        ),
    }),
  },
  simpleBearer('sendgrid', 'SendGrid', ['sendgrid-api-key'], '/v3/scopes'),
  {
    id: 'twilio',
    name: 'Twilio',
    rules: ['twilio-auth-token'],
    endpoint: 'GET /2010-04-01/Accounts/{sid}.json (account SID : auth token)',
    prepare(found) {
      const sid = nearestMatch(found, /(?<![A-Za-z0-9])(AC[0-9a-f]{32})(?![A-Za-z0-9])/g);
      if (!sid) return verdict('unknown', 'no Twilio account SID in the same file');
      return {
        identity: [sid, found.secret],
        check: async (http) => byStatus(await http.call('twilio', `/2010-04-01/Accounts/${sid}.json`, { headers: basic(sid, found.secret) }), [401]),
      };
    },
  },
  {
    id: 'npm',
    name: 'npm',
    rules: ['npm-token', 'npmrc-auth-token'],
    endpoint: 'GET /-/whoami',
    prepare(found) {
      if (found.ruleId === 'npmrc-auth-token') {
        // An .npmrc token belongs to the registry its line names; only npm's own is asked.
        const lineStart = found.text.lastIndexOf('\n', found.offset) + 1;
        if (!/^\s*\/\/registry\.npmjs\.org\/:_authToken\s*=/i.test(found.text.slice(lineStart, found.offset))) {
          return verdict('unknown', 'a token for another registry than npm\'s is not checked');
        }
      }
      return { identity: [found.secret], check: async (http) => byStatus(await http.call('npm', '/-/whoami', { headers: bearer(found.secret) })) };
    },
  },
  {
    id: 'pypi',
    name: 'PyPI',
    rules: ['pypi-token'],
    endpoint: 'none: PyPI has no read-only call that authenticates an upload token',
    prepare: () => verdict('unknown', 'PyPI has no read-only endpoint that checks an upload token'),
  },
  {
    id: 'dockerhub',
    name: 'Docker Hub',
    rules: ['dockerhub-pat', 'docker-config-auth'],
    endpoint: 'POST /v2/auth/token {identifier, secret}',
    prepare(found) {
      if (found.ruleId === 'docker-config-auth') {
        const [username, ...rest] = Buffer.from(found.secret, 'base64').toString('utf8').split(':');
        const password = rest.join(':');
        const registry = /"([^"]+)"\s*:\s*\{\s*\\?"auth\\?"\s*:\s*\\?"?$/.exec(found.text.slice(Math.max(0, found.offset - 300), found.offset))?.[1];
        const host = registry?.replace(/^https?:\/\//, '').split('/')[0]?.toLowerCase();
        if (!host || !DOCKER_HUB_REGISTRIES.has(host)) return verdict('unknown', 'credentials for a registry other than Docker Hub are not checked');
        if (!username || !password) return verdict('unknown', 'the auth value is not user:password');
        return dockerHubLogin(username, password);
      }
      const username = nearestMatch(found, /docker(?:hub)?_?(?:user(?:name)?|login|id)["']?\s*[:=]\s*["']?([a-z0-9][a-z0-9._-]{1,63})/gi);
      if (!username) return verdict('unknown', 'no Docker Hub username in the same file');
      return dockerHubLogin(username, found.secret);
    },
  },
  {
    id: 'datadog',
    name: 'Datadog',
    rules: ['datadog-api-key'],
    endpoint: 'GET /api/v1/validate (US1, then EU1)',
    prepare({ secret }) {
      if (!/^[a-f0-9]{32}$/.test(secret)) return verdict('unknown', 'an application key is checked only together with its API key');
      return {
        identity: [secret],
        check: (http) => anyRegion(['datadog', 'datadog_eu'], async (key) => byStatus(await http.call(key, '/api/v1/validate', { headers: { 'dd-api-key': secret } }))),
      };
    },
  },
  {
    id: 'google',
    name: 'Google API key',
    rules: ['gcp-api-key'],
    endpoint: 'GET /language/translate/v2/languages (x-goog-api-key)',
    prepare: ({ secret }) => ({
      identity: [secret],
      async check(http) {
        const response = await http.call('google', '/language/translate/v2/languages', { headers: { 'x-goog-api-key': secret } });
        // Google answers 400 API_KEY_INVALID for a key it does not know; 403 is a real key restricted
        // from the Translation API, which is not proof it works elsewhere.
        if (response.status === 400 && GOOGLE_INVALID.test(response.body)) return verdict('invalid', 'Google refused it (API_KEY_INVALID)');
        if (response.status === 403) return verdict('unknown', 'Google knows the key but it may not call the Translation API');
        return byStatus(response, [401]);
      },
    }),
  },
  {
    id: 'azure_storage',
    name: 'Azure Storage',
    rules: ['azure-storage-connection-string', 'azure-storage-account-key'],
    endpoint: 'GET /?comp=list&maxresults=1 (List Containers, Shared Key)',
    prepare(found) {
      const before = found.text.slice(Math.max(0, found.offset - 400), found.offset);
      let account: string | undefined;
      if (found.ruleId === 'azure-storage-connection-string') {
        account = /AccountName=([a-z0-9]{3,24})\s*;[^\n]*$/i.exec(before)?.[1]?.toLowerCase();
        const after = found.text.slice(found.offset, found.offset + 400).split(/["'\s]/)[0]!;
        const suffix = /EndpointSuffix=([^;"'\s]+)/i.exec(before + after)?.[1];
        if (suffix && suffix.toLowerCase() !== 'core.windows.net') return verdict('unknown', 'an account outside the public Azure cloud is not checked');
      } else {
        // A bare account key: its account named beside it (AZURE_STORAGE_ACCOUNT=…, account_name: …).
        account = nearestMatch(found, /(?:storage_?account(?:_?name)?|account_?name)["']?\s*[:=]\s*["']?([a-z0-9]{3,24})(?![a-z0-9])/gi)?.toLowerCase();
      }
      if (!account) return verdict('unknown', 'no storage account name beside the key');
      return {
        identity: [account, found.secret],
        async check(http) {
          const path = '/?comp=list&maxresults=1';
          const url = http.urlOf('azure_storage', path, { account });
          return byStatus(await http.call('azure_storage', path, { vars: { account }, headers: signAzureGet(url, account, found.secret) }));
        },
      };
    },
  },
  {
    id: 'shopify',
    name: 'Shopify',
    rules: ['shopify-access-token'],
    endpoint: 'GET https://{shop}.myshopify.com/admin/api/2024-10/shop.json',
    prepare(found) {
      const shop = nearestMatch(found, /(?<![a-z0-9-])([a-z0-9][a-z0-9-]{0,60})\.myshopify\.com/gi);
      if (!shop) return verdict('unknown', 'no myshopify.com shop domain in the same file');
      return {
        identity: [shop.toLowerCase(), found.secret],
        check: async (http) =>
          byStatus(await http.call('shopify', '/admin/api/2024-10/shop.json', { vars: { shop }, headers: { 'x-shopify-access-token': found.secret } }), [401]),
      };
    },
  },
  simpleBearer('huggingface', 'Hugging Face', ['huggingface-token'], '/api/whoami-v2', [401]),
  {
    ...simpleBearer('digitalocean', 'DigitalOcean', ['digitalocean-token'], '/v2/account', [401]),
    prepare(found) {
      if (found.secret.startsWith('dor_')) return verdict('unknown', 'a refresh token cannot call the API');
      return { identity: [found.secret], check: async (http) => byStatus(await http.call('digitalocean', '/v2/account', { headers: bearer(found.secret) }), [401]) };
    },
  },
  simpleBearer('heroku', 'Heroku', ['heroku-api-key', 'heroku-api-key-v2'], '/account', [401, 403], { accept: 'application/vnd.heroku+json; version=3' }),
  {
    id: 'mailgun',
    name: 'Mailgun',
    rules: ['mailgun-api-key'],
    endpoint: 'GET /v3/domains?limit=1 (api : key; US, then EU)',
    prepare: ({ secret }) => ({
      identity: [secret],
      check: (http) => anyRegion(['mailgun', 'mailgun_eu'], async (key) => byStatus(await http.call(key, '/v3/domains?limit=1', { headers: basic('api', secret) }))),
    }),
  },
];

const BY_RULE = new Map(PROVIDERS.flatMap((p) => p.rules.map((rule) => [rule, p] as const)));

/** The provider that checks credentials of a rule, if any. */
export function providerForRule(ruleId: string): ProviderCheck | undefined {
  return BY_RULE.get(ruleId);
}

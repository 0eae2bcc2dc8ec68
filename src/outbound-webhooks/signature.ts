import crypto from 'node:crypto';

// Standard Webhooks (https://www.standardwebhooks.com): the secret is `whsec_` and the base64 of its key;
// each attempt is signed over "{id}.{timestamp}.{body}" with HMAC-SHA256 of that key.

const PREFIX = 'whsec_';
/** 32 random bytes, within the 24–64 the specification asks for. */
const KEY_BYTES = 32;

export function newSigningSecret(): string {
  return `${PREFIX}${crypto.randomBytes(KEY_BYTES).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new Error('not a whsec_ signing secret');
  return Buffer.from(secret.slice(PREFIX.length), 'base64');
}

/** One `v1,<signature>` per secret, space-separated (a consumer accepts the message if any one matches). */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => `v1,${crypto.createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`)
    .join(' ');
}

/** The headers of one attempt; `timestamp` in unix seconds. */
export function webhookHeaders(secrets: readonly string[], id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, id, timestamp, body),
  };
}

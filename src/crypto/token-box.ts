import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const ALGORITHM = 'aes-256-gcm';
const VERSION = 'v1';

/** Encrypts source-repo access tokens at rest (AES-256-GCM, random IV per value). */
export class TokenBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the encryption key must be 32 bytes');
    this.key = key;
  }

  seal(plaintext: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv(ALGORITHM, this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
  }

  /** A separate key for another purpose (such as keyed hashes of secrets), derived so one setting covers both. */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(crypto.hkdfSync('sha256', this.key, Buffer.alloc(0), `bulwark:${purpose}`, 32));
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split(':');
    if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('unrecognised sealed token format');
    const decipher = crypto.createDecipheriv(ALGORITHM, this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }
}

function decodeKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error('BULWARK_ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64');
  return key;
}

/**
 * The configured key, or one kept in `<dataDir>/encryption.key` (created with mode 0600 on first use)
 * so the embedded default works without setup. Multi-node deployments set BULWARK_ENCRYPTION_KEY.
 */
export function loadTokenBox(configuredKey: string | null, dataDir: string): TokenBox {
  if (configuredKey) return new TokenBox(decodeKey(configuredKey));
  const file = path.join(dataDir, 'encryption.key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    try {
      fs.writeFileSync(file, crypto.randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return new TokenBox(decodeKey(fs.readFileSync(file, 'utf8')));
}

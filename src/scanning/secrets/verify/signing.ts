import crypto from 'node:crypto';
// AWS Signature Version 4 through aws4, a small, dependency-free and widely used signer (it signed the
// old `request` library's AWS calls). The official @aws-sdk/client-sts would bring its credential-provider
// chain and HTTP stack (dozens of @smithy packages) for one request, and would send it itself; signing
// here lets the STS check go through the same pinned, redirect-free, time-limited request as every other
// provider's check (http.ts).
import aws4 from 'aws4';

export interface AwsKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Headers for a SigV4-signed `POST` of `body` to `url` (STS, us-east-1). */
export function signStsPost(url: URL, body: string, keys: AwsKeys): Record<string, string> {
  const signed = aws4.sign(
    {
      host: url.host,
      path: url.pathname + url.search,
      method: 'POST',
      service: 'sts',
      region: 'us-east-1',
      body,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8' },
    },
    keys,
  );
  // fetch sets Host and Content-Length itself, to the values that were signed.
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers ?? {})) {
    if (!/^(host|content-length)$/i.test(name)) headers[name] = String(value);
  }
  return headers;
}

/**
 * Azure Storage Shared Key authorization of a `GET` (version 2021-08-06): the string to sign is the verb,
 * eleven empty standard headers, the canonical x-ms-* headers and the canonical resource.
 */
export function signAzureGet(url: URL, account: string, key: string, now = new Date()): Record<string, string> {
  const headers: Record<string, string> = { 'x-ms-date': now.toUTCString(), 'x-ms-version': '2021-08-06' };
  const canonicalHeaders = Object.keys(headers).sort().map((name) => `${name}:${headers[name]}\n`).join('');
  const params = [...url.searchParams.keys()].map((k) => k.toLowerCase()).sort();
  const canonicalResource =
    `/${account}${url.pathname}` + params.map((k) => `\n${k}:${url.searchParams.getAll(k).sort().join(',')}`).join('');
  const stringToSign = ['GET', '', '', '', '', '', '', '', '', '', '', '', ''].join('\n') + canonicalHeaders + canonicalResource;
  const signature = crypto.createHmac('sha256', Buffer.from(key, 'base64')).update(stringToSign, 'utf8').digest('base64');
  return { ...headers, authorization: `SharedKey ${account}:${signature}` };
}

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A git host on loopback: HTTPS with a self-signed certificate, Basic authentication, and git's own
 * smart-HTTP CGI (`git http-backend`) behind it. It records each request's Authorization header and the
 * process list seen while git was talking to it.
 */
export interface GitHttpsServer {
  url: string;
  /** The certificate file, for GIT_SSL_CAINFO. */
  caFile: string;
  authorizations: (string | undefined)[];
  processListings: string[];
  close(): Promise<void>;
}

export async function startGitHttpsServer(projectRoot: string, expectedAuthorization: string): Promise<GitHttpsServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-tls-'));
  const keyFile = path.join(dir, 'key.pem');
  const caFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', caFile,
  ], { stdio: 'ignore' });
  const backend = path.join(execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim(), 'git-http-backend');
  const authorizations: (string | undefined)[] = [];
  const processListings: string[] = [];

  const server = https.createServer({ key: fs.readFileSync(keyFile), cert: fs.readFileSync(caFile) }, (req, res) => {
    authorizations.push(req.headers.authorization);
    processListings.push(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }));
    if (req.headers.authorization !== expectedAuthorization) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' });
      res.end('unauthorized');
      return;
    }
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const cgi = spawn(backend, [], {
      env: {
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        REMOTE_USER: 'tester',
        PATH: process.env.PATH,
      },
    });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    cgi.on('close', () => {
      const output = Buffer.concat(chunks);
      const split = output.indexOf('\r\n\r\n');
      const headerText = output.subarray(0, split).toString('utf8');
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of headerText.split('\r\n')) {
        const [name, ...rest] = line.split(':');
        const value = rest.join(':').trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else if (name) headers[name] = value;
      }
      res.writeHead(status, headers);
      res.end(output.subarray(split + 4));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    caFile,
    authorizations,
    processListings,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          fs.rmSync(dir, { recursive: true, force: true });
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

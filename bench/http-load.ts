// A small loopback HTTP/1.1 load generator for the API bench: keep-alive connections over raw sockets
// (cheaper per request than node:http's client, so the client is not the first thing to saturate), in
// two modes: closed loop (N connections, each sending its next request when the last one answered) and
// open loop at a fixed rate (latency counted from when a request was due, so a stalled server cannot
// hide its queue). Only ever pointed at 127.0.0.1.
import net from 'node:net';

export interface Target {
  port: number;
  path: string;
  headers?: Record<string, string>;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

/** How long past its last due request an open-loop run waits for answers. */
const GIVE_UP_AFTER_MS = 5000;

const HEADER_END = Buffer.from('\r\n\r\n');
const CHUNKED_END = Buffer.from('0\r\n\r\n');

/** One keep-alive connection that answers one request at a time with the response's status. */
class Connection {
  private readonly socket: net.Socket;
  private chunks: Buffer[] = [];
  private size = 0;
  private waiting: ((status: number) => void) | null = null;
  private failed: ((error: Error) => void) | null = null;
  readonly ready: Promise<void>;

  constructor(port: number) {
    this.socket = net.connect({ host: '127.0.0.1', port, noDelay: true });
    this.ready = new Promise((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
    this.socket.on('data', (data) => this.onData(data));
    this.socket.on('error', (error) => this.failed?.(error));
    this.socket.on('close', () => this.failed?.(new Error('connection closed')));
  }

  send(request: Buffer): Promise<number> {
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failed = reject;
      this.socket.write(request);
    });
  }

  private onData(data: Buffer) {
    this.chunks.push(data);
    this.size += data.length;
    const buffer = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
    this.chunks = [buffer];
    const headerEnd = buffer.indexOf(HEADER_END);
    if (headerEnd < 0) return;
    const head = buffer.subarray(0, headerEnd).toString('latin1');
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    const bodyStart = headerEnd + 4;
    let complete = false;
    if (length) complete = buffer.length >= bodyStart + Number(length[1]);
    else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) complete = buffer.length >= bodyStart + 5 && buffer.subarray(buffer.length - 5).equals(CHUNKED_END);
    else complete = true;
    if (!complete) return;
    this.chunks = [];
    this.size = 0;
    const done = this.waiting;
    this.waiting = null;
    this.failed = null;
    done?.(status);
  }

  close() {
    this.socket.destroy();
  }
}

function requestBytes(target: Target): Buffer {
  const headers = Object.entries(target.headers ?? {}).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return Buffer.from(`GET ${target.path} HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\n${headers}\r\n`, 'latin1');
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summarize(latencies: number[], errors: number, seconds: number): LoadResult {
  const sorted = latencies.sort((a, b) => a - b);
  return { requests: sorted.length, errors, seconds, rps: sorted.length / seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

async function open(port: number, count: number): Promise<Connection[]> {
  const connections = Array.from({ length: count }, () => new Connection(port));
  await Promise.all(connections.map((c) => c.ready));
  return connections;
}

/** `connections` clients each send a request as soon as the previous answered, for `seconds`. */
export async function closedLoop(target: Target, options: { connections: number; seconds: number }): Promise<LoadResult> {
  const request = requestBytes(target);
  const connections = await open(target.port, options.connections);
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const deadline = start + options.seconds * 1000;
  await Promise.all(
    connections.map(async (connection) => {
      while (performance.now() < deadline) {
        const sent = performance.now();
        const giveUp = new Promise<number>((resolve) => setTimeout(() => resolve(0), deadline + GIVE_UP_AFTER_MS - sent).unref());
        const status = await Promise.race([connection.send(request).catch(() => 0), giveUp]);
        if (status !== 200) errors++;
        latencies.push(performance.now() - sent);
        if (status === 0) return;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  for (const c of connections) c.close();
  return summarize(latencies, errors, seconds);
}

/**
 * Requests due at a fixed `rate` per second for `seconds`, spread over up to `connections` sockets; a
 * request due while every socket is busy waits for one, and its wait counts in its latency. Several
 * targets (one path under several keys, say) take the requests in turn.
 */
export async function fixedRate(
  target: Target | Target[],
  options: { rate: number; seconds: number; connections: number; stop?: Promise<unknown> },
): Promise<LoadResult> {
  const targets = [target].flat();
  const requests = targets.map(requestBytes);
  let sent = 0;
  const idle = await open(targets[0].port, options.connections);
  const all = [...idle];
  const queue: number[] = [];
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  let total = Math.round(options.rate * options.seconds);
  let issued = 0;
  let finished = 0;
  let stoppedAt: number | undefined;
  await new Promise<void>((resolve) => {
    // Stopped early: nothing more is issued, and what is on its way is still waited for.
    void options.stop?.then(() => {
      stoppedAt ??= performance.now();
      total = issued;
      if (finished === total) resolve();
    });
    const dispatch = () => {
      while (queue.length && idle.length) {
        const due = queue.shift()!;
        const connection = idle.pop()!;
        connection.send(requests[sent++ % requests.length]).then(
          (status) => {
            if (status !== 200) errors++;
            latencies.push(performance.now() - due);
            idle.push(connection);
            if (++finished === total) resolve();
            else dispatch();
          },
          () => {
            errors++;
            if (++finished === total) resolve();
          },
        );
      }
    };
    const tick = () => {
      const now = performance.now();
      while (issued < total && start + (issued * 1000) / options.rate <= now) queue.push(start + (issued++ * 1000) / options.rate);
      dispatch();
      if (issued < total) setTimeout(tick, 1);
    };
    tick();
    // A server that cannot keep up does not hold the bench forever: what is unanswered by then failed.
    setTimeout(() => {
      errors += total - finished;
      resolve();
    }, options.seconds * 1000 + GIVE_UP_AFTER_MS).unref();
  });
  const seconds = ((stoppedAt ?? performance.now()) - start) / 1000;
  for (const c of all) c.close();
  return summarize(latencies, errors, Math.min(seconds, options.seconds));
}

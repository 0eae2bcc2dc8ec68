import type { FastifyBaseLogger, FastifyServerOptions, FastifyRequest } from 'fastify';
import { maskCredentials, redactUrl } from './redact.ts';

type LoggerOption = FastifyServerOptions['logger'];

/** Headers that carry credentials; they are never written, whatever a serializer adds. */
const REDACTED_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]', 'req.headers["x-gitlab-token"]', 'req.body', 'res.body'];

/** The request as a log line shows it: no body, no headers, and a URL with its credentials redacted. */
function request(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket ? req.socket.remotePort : undefined,
  };
}

/** An error as a log line shows it: its type, code and stack, with any credential in the message masked. */
function error(err: Error & { code?: unknown; statusCode?: unknown }) {
  if (!err || typeof err !== 'object') return err;
  return {
    type: err.constructor?.name ?? 'Error',
    message: maskCredentials(String(err.message ?? '')),
    stack: maskCredentials(String(err.stack ?? '')),
    ...(err.code !== undefined ? { code: err.code } : {}),
    ...(err.statusCode !== undefined ? { statusCode: err.statusCode } : {}),
  };
}

/** The server's logger options with redaction always on; `false` stays off and a ready logger is used as it is. */
export function redactingLogger(option: LoggerOption): LoggerOption {
  if (!option) return false;
  const base = option === true ? {} : (option as Exclude<LoggerOption, boolean | FastifyBaseLogger | undefined>);
  const redact = Array.isArray(base.redact) ? base.redact : (base.redact?.paths ?? []);
  return {
    ...base,
    redact: [...new Set([...redact, ...REDACTED_PATHS])],
    serializers: { ...base.serializers, req: request as never, err: error as never },
  };
}

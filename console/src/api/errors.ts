import type { ErrorEnvelope } from './types.ts';

/** A readable sentence for a failed call: the service's message, the 422 fields, or the HTTP status. */
export function errorText(error: unknown, response?: Response): string {
  const detail = (error as Partial<ErrorEnvelope> | undefined)?.detail;
  if (Array.isArray(detail)) {
    return detail.map((entry) => `${entry.loc.filter((part) => part !== 'body').join('.')}: ${entry.msg}`).join('; ');
  }
  if (detail && typeof detail === 'object' && typeof detail.detail === 'string') return detail.detail;
  if (typeof detail === 'string') return detail;
  if (response) return `The service answered ${response.status} ${response.statusText}`.trim();
  return 'The request failed';
}

/** The service's error code (`error_code`), when it gave one. */
export function errorCode(error: unknown): string | undefined {
  const detail = (error as Partial<ErrorEnvelope> | undefined)?.detail;
  return detail && !Array.isArray(detail) && typeof detail === 'object' ? detail.error_code : undefined;
}

/** Seconds from a Retry-After header (seconds or an HTTP date). */
export function retryAfterSeconds(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

import { ProviderError } from './provider.ts';

/** The error classes of a Stainless-generated SDK (openai, @anthropic-ai/sdk), which share their shape. */
export interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  APIUserAbortError: abstract new (...args: never[]) => Error;
}

export interface ProviderContext {
  /** What to call the provider in messages, e.g. "the OpenAI-compatible API at https://api.openai.com/v1". */
  label: string;
  apiKey: string | null;
  classes: SdkErrorClasses;
}

const MAX_MESSAGE = 400;

/** Where requests go, for messages: no credentials, query or fragment. */
export function describeEndpoint(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return 'the configured base URL';
  }
}

/** Removes the API key and anything that looks like a credential from text a provider sent. */
export function redact(text: string, apiKey: string | null): string {
  let out = text;
  if (apiKey) out = out.split(apiKey).join('[redacted]');
  out = out.replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [redacted]');
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > MAX_MESSAGE ? `${out.slice(0, MAX_MESSAGE)}…` : out;
}

function providerMessage(err: Error & { status?: number; error?: unknown }): string {
  const body = err.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const nested = body?.error?.message ?? body?.message;
  if (typeof nested === 'string' && nested.trim()) return nested;
  // The SDK's own message is "<status> <body or text>".
  return err.message.replace(/^\d{3}\s*/, '');
}

const HINTS: Record<number, string> = {
  401: ' (check BULWARK_LLM_API_KEY)',
  403: ' (check BULWARK_LLM_API_KEY and the account\'s access to the model)',
  404: ' (check BULWARK_LLM_BASE_URL and BULWARK_LLM_MODEL)',
  429: ' (rate limited or out of quota)',
};

/**
 * Turns an SDK error into a ProviderError safe to show: the HTTP status and the provider's message, never the
 * API key. An abort is returned as it is, for the loop to tell a cancellation from a timeout.
 */
export function providerFailure(err: unknown, context: ProviderContext): Error {
  const { classes, label, apiKey } = context;
  if (err instanceof ProviderError) return err;
  if (err instanceof classes.APIUserAbortError) return err;
  if (err instanceof classes.APIConnectionTimeoutError) return new ProviderError(`${label} did not answer in time`);
  if (err instanceof classes.APIConnectionError) {
    // fetch's "fetch failed" wraps the reason (ECONNREFUSED, a TLS problem…) in its own cause.
    let cause = (err as Error & { cause?: unknown }).cause;
    while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
    const reason = cause instanceof Error ? `: ${redact(cause.message, apiKey)}` : '';
    return new ProviderError(`could not reach ${label}${reason}`);
  }
  if (err instanceof classes.APIError) {
    const status = (err as Error & { status?: number }).status;
    const message = redact(providerMessage(err), apiKey);
    if (status) {
      return new ProviderError(`${label} answered ${status}${HINTS[status] ?? ''}${message ? `: ${message}` : ''}`);
    }
    return new ProviderError(`the request to ${label} failed${message ? `: ${message}` : ''}`);
  }
  const message = err instanceof Error ? redact(err.message, apiKey) : '';
  return new ProviderError(`the request to ${label} failed${message ? `: ${message}` : ''}`);
}

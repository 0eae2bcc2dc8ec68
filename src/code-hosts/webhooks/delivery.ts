import crypto from 'node:crypto';
import type { PullRequestObservation } from '../../core/pull-request-lifecycle.ts';
import type { Push } from '../../core/scan-triggers.ts';

// How a code host's webhook delivery is checked and read, one reader per host (github.ts, gitlab.ts,
// azure-devops.ts beside this file). A reader checks the host's own proof of the shared secret, names the
// delivery (the host's id for it, so a repeat is recognized) and says what it tells about a pull request.

export type Headers = Record<string, string | string[] | undefined>;

/**
 * What a delivery says about a pull request, without who says it (the hook's host) or how (a webhook), and
 * the branch it merges into (null when the host did not say).
 */
export type DeliveredPullRequest = Omit<PullRequestObservation, 'provider' | 'via'> & { baseBranch: string | null };

/** A push a delivery reports, without the host. */
export type DeliveredPush = Omit<Push, 'provider'>;

export interface ReadDelivery {
  /** The host's id for this delivery; a repeat carries the same one. */
  deliveryId: string;
  /** The host's name for the event. */
  event: string;
  /** What it says about a pull request; null for other events. */
  pullRequest: DeliveredPullRequest | null;
  /** The branches a push moved (a deleted branch or a tag is none). */
  pushes: DeliveredPush[];
}

export interface WebhookReader {
  /** The code host's name (`github`, `gitlab`, `azure_devops`). */
  provider: string;
  /** How a person sets the webhook up on the host: where its secret goes and which events to tick. */
  setup: { secret: string; events: string };
  /** Whether the delivery carries the host's proof of the shared secret. */
  verify(headers: Headers, body: Buffer, secret: string): boolean;
  /** The delivery read, or why it cannot be (a missing delivery id, a body that is not the host's shape). */
  read(headers: Headers, payload: unknown): ReadDelivery | { refused: string };
}

export function header(headers: Headers, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Equal strings, compared in time that does not depend on where they differ. */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => crypto.createHash('sha256').update(text, 'utf8').digest();
  return crypto.timingSafeEqual(digest(given), digest(expected));
}

/** A field of a JSON object, when the value is an object. */
export function objectAt(value: unknown, key: string): Record<string, unknown> | undefined {
  const field = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return field && typeof field === 'object' && !Array.isArray(field) ? (field as Record<string, unknown>) : undefined;
}

export function stringAt(value: Record<string, unknown> | undefined, key: string): string | null {
  const field = value?.[key];
  return typeof field === 'string' ? field : null;
}

export function numberAt(value: Record<string, unknown> | undefined, key: string): number | null {
  const field = value?.[key];
  return typeof field === 'number' && Number.isSafeInteger(field) && field > 0 ? field : null;
}

/** An ISO-8601 UTC time from the host's, or null. */
export function timeAt(value: Record<string, unknown> | undefined, key: string): string | null {
  const field = stringAt(value, key);
  const date = field ? new Date(field) : null;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : null;
}

/** `main` from `refs/heads/main`; null for a tag or anything else. */
export function branchOf(ref: string | null): string | null {
  return ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) || null : null;
}

/** A commit id that is not the all-zero one hosts send for a deleted branch. */
export function liveCommit(sha: string | null): string | null {
  return sha && !/^0+$/.test(sha) ? sha : null;
}

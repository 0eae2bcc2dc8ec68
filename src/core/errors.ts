/**
 * The error catalog: every refusal the API answers with (besides 422 validation errors) is made here,
 * one line per error code with its HTTP status and message, so codes, statuses and wording live in one
 * place. Core and http throw `errors.<name>(…)`; code-host failures are domain errors
 * (pull-request-errors.ts) that src/http/errors.ts turns into catalog errors at the edge.
 * Adding an error is one line in `errors`, plus its row in the README's Errors section.
 */

import { AGENT_SETTINGS } from '../config.ts';

/** A refusal the API turns into `{"detail":{"detail","error_code",…}}` with the given status. */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly errorCode: string;
  readonly extra: Record<string, unknown>;

  constructor(statusCode: number, errorCode: string, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.statusCode = statusCode;
    this.errorCode = errorCode;
    this.extra = extra;
  }
}

/** One catalog entry: call it to make the error; `code` and `statusCode` describe it. */
export interface ErrorKind<A extends unknown[]> {
  (...args: A): ApiError;
  readonly code: string;
  readonly statusCode: number;
}

function defineError<A extends unknown[]>(
  code: string,
  statusCode: number,
  message: (...args: A) => string,
  extra?: (...args: A) => Record<string, unknown>,
): ErrorKind<A> {
  const make = (...args: A) => new ApiError(statusCode, code, message(...args), extra?.(...args));
  return Object.assign(make, { code, statusCode });
}

const said = (message: string) => message;

export const errors = {
  /** A 4xx Fastify raised itself (an unsupported media type, an empty JSON body). */
  badRequest: defineError('BAD_REQUEST', 400, said),
  unauthorized: defineError('UNAUTHORIZED', 401, said),
  missingScope: defineError('INSUFFICIENT_SCOPE', 403, (scope: string) => `This API key lacks the "${scope}" scope required by this route`),
  /** A console call whose role in the organization is below what the action needs. */
  insufficientRole: defineError('INSUFFICIENT_ROLE', 403, (least: string) => `This needs the ${least} role (or higher) in the organization`),
  /** A state-changing call made with the session cookie but without the session's X-CSRF-Token. */
  csrfFailed: defineError('CSRF_FAILED', 403, () => 'Missing or wrong X-CSRF-Token header: send the csrf_token of your session with every change'),
  quotaExhausted: defineError(
    'OPERATION_FAILED',
    403,
    (quotaType: string, _periodEnd: string) => `Quota exhausted: no ${quotaType} credits remain in the current period`,
    (quotaType, periodEnd) => ({ quota_type: quotaType, period_end: periodEnd }),
  ),
  /** Also for ids of other organizations, so their existence is not revealed. */
  notFound: defineError('NOT_FOUND', 404, (what: string) => `${what} not found`),
  invalidState: defineError('INVALID_STATE', 409, said),
  agentUnavailable: defineError('AGENT_UNAVAILABLE', 409, (what: string) =>
    `${what} needs an LLM agent, and none is configured on this server (set ${AGENT_SETTINGS})`),
  /** A fix nothing on this server could carry out: no agent, and findings no deterministic fixer handles (or none at all). */
  noFixerAvailable: defineError(
    'NO_FIXER_AVAILABLE',
    409,
    (unhandledCheckIds: string[], _findingIds: string[]) =>
      unhandledCheckIds.length
        ? `No deterministic fixer handles ${unhandledCheckIds.join(', ')}, and no LLM agent is configured on this server to take it (set ${AGENT_SETTINGS})`
        : `A fix without findings needs an LLM agent to follow its instructions, and none is configured on this server (set ${AGENT_SETTINGS})`,
    (_checkIds, findingIds) => (findingIds.length ? { finding_ids: findingIds } : {}),
  ),
  /** A finding whose fix would change what another live fix of the same repository changes; nothing is stored or charged. */
  fixOverlaps: defineError(
    'FIX_OVERLAPS',
    409,
    (findingId: string, _fixId: string, reason: string) => `Finding ${findingId} is not fixed apart: ${reason}`,
    (findingId, fixId) => ({ fix_id: fixId, finding_id: findingId }),
  ),
  prProviderUnavailable: defineError('PR_PROVIDER_UNAVAILABLE', 409, () => 'No code-host integration is configured to open pull requests'),
  /** No usable access token is stored for the fix's source repository; nothing was pushed and the fix keeps its status. */
  prTokenMissing: defineError('PR_TOKEN_MISSING', 409, said),
  /** The code host refused the source's access token (401/403, or git's authentication failure); the fix keeps its status. */
  prTokenRejected: defineError('PR_TOKEN_REJECTED', 409, said),
  branchExists: defineError('BRANCH_EXISTS', 409, (branch: string, repository: string) =>
    `Branch "${branch}" already exists in ${repository} with other changes; choose another branch_name or delete the branch`),
  /** A request with the same Idempotency-Key is still being worked on (the IETF idempotency-key draft's 409). */
  idempotencyKeyInUse: defineError(
    'IDEMPOTENCY_KEY_IN_USE',
    409,
    () => 'A request with this Idempotency-Key is still in progress; retry once it has been answered',
  ),
  /** Each fix opens its pull request from a branch of its own; another fix of the organization holds this one. */
  branchNameTaken: defineError('BRANCH_NAME_TAKEN', 409, (branch: string, repository: string) =>
    `Branch "${branch}" of ${repository} is already used by another fix; choose another branch_name`),
  /** Removing or demoting the organization's only owner would leave nobody able to manage it. */
  lastOwner: defineError('LAST_OWNER', 409, () => 'The organization must keep at least one owner'),
  alreadyMember: defineError('ALREADY_MEMBER', 409, (email: string) => `${email} is already a member of this organization`),
  payloadTooLarge: defineError('PAYLOAD_TOO_LARGE', 413, () => 'Request body is too large'),
  /** Too many requests of one API key (per minute or at once); the answer carries `Retry-After`. */
  rateLimited: defineError(
    'RATE_LIMITED',
    429,
    (why: string, retryAfterSeconds: number) => `Too many requests for this API key: ${why}; retry after ${retryAfterSeconds} s`,
    (_why, retryAfterSeconds) => ({ retry_after_seconds: retryAfterSeconds }),
  ),
  /** Too many failed sign-ins for an email or from one address; the answer carries `Retry-After`. */
  /** Too many device-login codes asked for from one address, or user codes looked up in vain; the answer carries `Retry-After`. */
  deviceFlowLimited: defineError(
    'DEVICE_FLOW_LIMITED',
    429,
    (what: string, retryAfterSeconds: number) => `Too many ${what}; retry after ${retryAfterSeconds} s`,
    (_what, retryAfterSeconds) => ({ retry_after_seconds: retryAfterSeconds }),
  ),
  signInLocked: defineError(
    'SIGN_IN_LOCKED',
    429,
    (retryAfterSeconds: number) => `Too many failed sign-in attempts; retry after ${retryAfterSeconds} s`,
    (retryAfterSeconds) => ({ retry_after_seconds: retryAfterSeconds }),
  ),
  internalError: defineError('INTERNAL_ERROR', 500, () => 'Internal server error'),
  /** The code host refused or failed; the fix is marked `pr_creation_failed` with the same message. */
  prCreationFailed: defineError('PR_CREATION_FAILED', 502, said),
  /** Opening the pull request ran past BULWARK_PR_TIMEOUT_SECONDS; the fix is marked `pr_creation_failed` and can be retried. */
  prTimeout: defineError('PR_TIMEOUT', 504, said),
} satisfies Record<string, ErrorKind<any>>;

/** Every entry of the catalog, for documentation and checks. */
export const ERROR_CATALOG: readonly ErrorKind<any>[] = Object.values(errors);

export const { notFound, invalidState, unauthorized, missingScope } = errors;

/** A body value that passed the schema but is wrong for this organization's data; answered like any 422. */
export class BodyValueError extends Error {
  readonly loc: (string | number)[];
  readonly input: unknown;
  readonly type: string;

  constructor(loc: (string | number)[], message: string, input: unknown, type = 'value_error') {
    super(message);
    this.loc = loc;
    this.input = input;
    this.type = type;
  }
}

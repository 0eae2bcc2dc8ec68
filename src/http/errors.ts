import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, BodyValueError, errors } from '../core/errors.ts';
import { BranchExistsError, PullRequestError, PullRequestTokenError } from '../core/pull-request-errors.ts';
import { maskCredentials, redactCredentials } from './redact.ts';
import { mayHoldNul, nulCharacterError, toFastApiErrors, type FastApiError } from './validation.ts';

/** The error envelope; a credential a caller sent (say, in a path) is masked in the message, never echoed. */
function envelope(error: ApiError) {
  return { detail: { detail: maskCredentials(error.message), error_code: error.errorCode, ...redactCredentials(error.extra) } };
}

/** Domain errors of the layers below, as the catalog's API errors; undefined for anything else. */
export function apiErrorOf(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof PullRequestError) return error.timedOut ? errors.prTimeout(error.message) : errors.prCreationFailed(error.message);
  if (error instanceof BranchExistsError) return errors.branchExists(error.branch, error.repository);
  if (error instanceof PullRequestTokenError) return error.problem === 'missing' ? errors.prTokenMissing(error.message) : errors.prTokenRejected(error.message);
  return undefined;
}

function jsonDecodeError(error: FastifyError): FastApiError {
  const position = /position (\d+)/.exec(error.message)?.[1];
  return {
    loc: ['body', position ? Number(position) : 0],
    msg: 'JSON decode error',
    type: 'json_invalid',
    input: {},
    ctx: { error: error.message.replace(/^Body is not valid JSON but content-type is set to 'application\/json'\s*/i, '') },
  };
}

/**
 * Echoes each input back as FastAPI does, unless it is nested too deeply to serialize at all, and except
 * what looks like a credential (an API key sent in the wrong field): that is replaced by a marker.
 */
function validationBody(problems: FastApiError[]) {
  return {
    detail: problems.map((error) => {
      try {
        JSON.stringify(error.input);
      } catch {
        error = { ...error, input: null };
      }
      return { ...redactCredentials(error), msg: maskCredentials(error.msg) };
    }),
  };
}

/**
 * Maps every failure to the contract's wire format: 422 for bad input, the error envelope for the rest.
 * Also serves as Fastify's `frameworkErrors` handler, so router refusals (an undecodable URL, an
 * over-long path parameter) leave in the same envelope.
 */
export function sendError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const apiError = apiErrorOf(error);
  if (apiError) {
    // Every refusal that says when to come back says it in the standard header too.
    if (typeof apiError.extra.retry_after_seconds === 'number') reply.header('retry-after', String(apiError.extra.retry_after_seconds));
    return reply.status(apiError.statusCode).send(envelope(apiError));
  }
  if (error instanceof BodyValueError) {
    return reply.status(422).send(validationBody([{ loc: error.loc, msg: error.message, type: error.type, input: error.input }]));
  }
  if (error.validation) {
    const context = error.validationContext ?? 'body';
    return reply.status(422).send(validationBody(toFastApiErrors(error.validation as never, context, request.body === undefined)));
  }
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError) {
    return reply.status(422).send(validationBody([jsonDecodeError(error)]));
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return reply.status(413).send(envelope(errors.payloadTooLarge()));
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return reply.status(status).send(envelope(errors.badRequest(error.message)));
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.status(500).send(envelope(errors.internalError()));
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(sendError);

  // Strings holding U+0000 can never match or be stored (see nulCharacterError): refuse them before any query runs.
  app.addHook('preValidation', (request, _reply, done) => {
    const parts = { path: request.params, query: request.query, body: request.body };
    const error = mayHoldNul(parts) ? nulCharacterError(parts) : undefined;
    done(error ? new BodyValueError(error.loc, error.msg, error.input, error.type) : undefined);
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(envelope(errors.notFound(`Route ${request.method} ${request.url.split('?')[0]}`)));
  });
}

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

export const notFound = (what: string) => new ApiError(404, 'NOT_FOUND', `${what} not found`);

export const invalidState = (message: string) => new ApiError(409, 'INVALID_STATE', message);

export const unauthorized = (message: string) => new ApiError(401, 'UNAUTHORIZED', message);

export const missingScope = (scope: string) =>
  new ApiError(403, 'INSUFFICIENT_SCOPE', `This API key lacks the "${scope}" scope required by this route`);

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

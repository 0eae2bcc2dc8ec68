import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

// Validation errors leave as FastAPI's HTTPValidationError (`{"detail":[{loc,msg,type,input,ctx}]}`),
// the format existing v1 clients parse. AJV finds the errors; this module renames them.

export interface FastApiError {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

type Part = 'body' | 'query' | 'path' | 'header';

const PART_NAMES: Record<string, Part> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

// RFC 3339 date-times, with or without an offset, and plain dates, as pydantic accepts them.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

export function isDateTime(value: string): boolean {
  return DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
}

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, verbose: true, useDefaults: true, ...options });
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  return ajv;
}

/** Bodies are JSON and must already have the right types; query and path values arrive as text and are coerced. */
const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: true });
const cache = new WeakMap<object, ValidateFunction>();

// pydantic's reading of a boolean sent as text, case-insensitive. AJV alone coerces only "true" and "false",
// which would refuse `include_archived=True` as Python's requests sends it.
const TEXT_BOOLEANS: Record<string, boolean> = {
  '1': true, on: true, t: true, true: true, y: true, yes: true,
  '0': false, off: false, f: false, false: false, n: false, no: false,
};

/**
 * Reads the text values of the schema's boolean properties as pydantic does, and those of its enum properties
 * without regard to case (`status=QUEUED` is `queued`), then validates as usual.
 */
function withTextValues(schema: object, validate: ValidateFunction): ValidateFunction {
  const properties = (schema as { properties?: Record<string, { type?: unknown; enum?: unknown[] }> }).properties ?? {};
  const readers = new Map<string, (text: string) => unknown>();
  for (const [name, property] of Object.entries(properties)) {
    if (property.type === 'boolean') readers.set(name, (text) => TEXT_BOOLEANS[text.toLowerCase()]);
    else if (Array.isArray(property.enum)) {
      const byLowerCase = new Map(property.enum.filter((v) => typeof v === 'string').map((v) => [v.toLowerCase(), v]));
      readers.set(name, (text) => byLowerCase.get(text.toLowerCase()));
    }
  }
  if (!readers.size) return validate;
  const wrapped = ((data: Record<string, unknown> | null) => {
    for (const [name, read] of readers) {
      const value = data?.[name];
      const parsed = typeof value === 'string' ? read(value) : undefined;
      if (parsed !== undefined) data![name] = parsed;
    }
    const valid = validate(data);
    wrapped.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return wrapped;
}

export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  let validate = cache.get(schema as object);
  if (!validate) {
    validate = ajv.compile(schema as object);
    if (httpPart !== 'body') validate = withTextValues(schema as object, validate);
    cache.set(schema as object, validate);
  }
  return validate;
};

function enumText(values: unknown[]): string {
  const quoted = values.map((v) => `'${String(v)}'`);
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : (quoted[0] ?? '');
}

function typeError(expected: string, part: Part): Pick<FastApiError, 'type' | 'msg'> {
  const parsed = part !== 'body';
  switch (expected) {
    case 'integer':
      return parsed
        ? { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' }
        : { type: 'int_type', msg: 'Input should be a valid integer' };
    case 'number':
      return parsed
        ? { type: 'float_parsing', msg: 'Input should be a valid number, unable to parse string as a number' }
        : { type: 'float_type', msg: 'Input should be a valid number' };
    case 'boolean':
      return parsed
        ? { type: 'bool_parsing', msg: 'Input should be a valid boolean, unable to interpret input' }
        : { type: 'bool_type', msg: 'Input should be a valid boolean' };
    case 'array':
      return { type: 'list_type', msg: 'Input should be a valid list' };
    case 'object':
      return { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' };
    default:
      return { type: 'string_type', msg: 'Input should be a valid string' };
  }
}

function locOf(part: Part, instancePath: string): (string | number)[] {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  return [part, ...segments];
}

function convert(error: ErrorObject, part: Part, bodyAbsent: boolean): FastApiError | undefined {
  const loc = locOf(part, error.instancePath);
  const input = error.data;
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { loc: [...loc, String(p.missingProperty)], msg: 'Field required', type: 'missing', input: input ?? null };
    case 'type': {
      if (part === 'body' && error.instancePath === '' && bodyAbsent) {
        return { loc: ['body'], msg: 'Field required', type: 'missing', input: null };
      }
      return { loc, ...typeError(String(p.type).split(',')[0], part), input };
    }
    case 'enum': {
      const expected = enumText(p.allowedValues as unknown[]);
      return { loc, msg: `Input should be ${expected}`, type: 'enum', input, ctx: { expected } };
    }
    case 'minimum':
      return { loc, msg: `Input should be greater than or equal to ${p.limit}`, type: 'greater_than_equal', input, ctx: { ge: p.limit } };
    case 'maximum':
      return { loc, msg: `Input should be less than or equal to ${p.limit}`, type: 'less_than_equal', input, ctx: { le: p.limit } };
    case 'minLength':
      return {
        loc,
        msg: `String should have at least ${p.limit} character${p.limit === 1 ? '' : 's'}`,
        type: 'string_too_short',
        input,
        ctx: { min_length: p.limit },
      };
    case 'maxLength':
      return {
        loc,
        msg: `String should have at most ${p.limit} character${p.limit === 1 ? '' : 's'}`,
        type: 'string_too_long',
        input,
        ctx: { max_length: p.limit },
      };
    case 'minItems': {
      const actual = Array.isArray(input) ? input.length : 0;
      return {
        loc,
        msg: `List should have at least ${p.limit} item${p.limit === 1 ? '' : 's'} after validation, not ${actual}`,
        type: 'too_short',
        input,
        ctx: { field_type: 'List', min_length: p.limit, actual_length: actual },
      };
    }
    case 'maxItems': {
      const actual = Array.isArray(input) ? input.length : 0;
      return {
        loc,
        msg: `List should have at most ${p.limit} items after validation, not ${actual}`,
        type: 'too_long',
        input,
        ctx: { field_type: 'List', max_length: p.limit, actual_length: actual },
      };
    }
    case 'format':
      if (p.format === 'date-time') {
        return { loc, msg: 'Input should be a valid datetime or date', type: 'datetime_from_date_parsing', input };
      }
      return { loc, msg: `Input should be a valid ${String(p.format)}`, type: 'value_error', input };
    case 'anyOf':
      return undefined;
    default:
      return { loc, msg: error.message ?? 'Invalid value', type: 'value_error', input };
  }
}

/**
 * One FastAPI error per failing location. AJV reports every branch of a nullable (`anyOf [T, null]`)
 * value; the branch for `null` and the summary `anyOf` entry say nothing a caller can act on.
 * Fastify validates an absent body as `null`, so whether the request had one at all is passed in.
 */
export function toFastApiErrors(errors: ErrorObject[], context: string, bodyAbsent = false): FastApiError[] {
  const part = PART_NAMES[context] ?? 'body';
  const meaningful = errors.filter(
    (e) => e.keyword !== 'anyOf' && !(e.keyword === 'type' && (e.params as { type?: string }).type === 'null'),
  );
  const seen = new Set<string>();
  const result: FastApiError[] = [];
  for (const error of meaningful.length ? meaningful : errors) {
    const converted = convert(error, part, bodyAbsent);
    if (!converted) continue;
    const key = JSON.stringify(converted.loc);
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(converted);
  }
  return result;
}

/**
 * False when no string of the parts can hold U+0000: their values (path and query parameters, most often)
 * are strings without one, numbers or absent. Looks one level down without allocating; anything nested is
 * left to nulCharacterError.
 */
export function mayHoldNul(parts: Partial<Record<Part, unknown>>): boolean {
  for (const key in parts) {
    const part = parts[key as Part];
    if (part === undefined || part === null) continue;
    if (typeof part !== 'object') return true;
    for (const name in part) {
      const value = (part as Record<string, unknown>)[name];
      if (typeof value === 'string' ? value.includes('\u0000') : value !== null && typeof value === 'object') return true;
    }
  }
  return false;
}

/**
 * PostgreSQL text cannot hold U+0000, so no stored id or value contains one. A path, query or body string
 * carrying it is refused here as a 422 instead of failing inside the database. Iterative, with the
 * location built only on a hit, so deeply nested bodies cost neither stack nor quadratic copying.
 */
export function nulCharacterError(parts: Partial<Record<Part, unknown>>): FastApiError | undefined {
  type Node = { value: unknown; key: string | number; parent?: Node };
  const pending: Node[] = Object.entries(parts).map(([key, value]): Node => ({ key, value })).reverse();
  for (let node = pending.pop(); node; node = pending.pop()) {
    const { value } = node;
    if (typeof value === 'string' && value.includes('\u0000')) {
      const loc: (string | number)[] = [];
      for (let n: Node | undefined = node; n; n = n.parent) loc.push(n.key);
      return { loc: loc.reverse(), msg: 'Value error, NUL characters (\\u0000) are not allowed', type: 'value_error', input: value };
    }
    if (value && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        pending.push({ value: child, key: Array.isArray(value) ? Number(key) : key, parent: node });
      }
    }
  }
  return undefined;
}

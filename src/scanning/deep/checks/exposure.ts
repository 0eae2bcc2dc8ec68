import type { SgNode } from '@ast-grep/napi';
import { handlerFunction } from '../python-program.ts';
import { CWE, endLineOf, lineOf, READS_PASSWORD, type Candidate, type FileContext } from './shared.ts';

// What the application lets out: exception details in responses, passwords stored as typed, passwords in
// what is serialized for clients.

export const HASHES_PASSWORD = /generate_password_hash|hashpw|bcrypt|make_password|set_password|pbkdf2|argon2|scrypt|hash_password|passlib|hashlib|sha\d+|md5|\bhash\s*\(|encrypt|crypt\s*\(|hasher/i;
/** A model constructor (`User(…)`) or a call that writes a record. */
const STORING_CALL = /(?:^|\.)(?:[A-Z]\w*|create_user|create|insert|add_user|update)$/;
const RESPONSE_CALL = /\b(?:return|render_template|render|jsonify|make_response|Response|HttpResponse|JsonResponse|json_response|abort|flash|web\.Response|HTMLResponse|PlainTextResponse|JSONResponse|write|send|send_error|send_response|finish)\b/;
const VALIDATION_ERROR = /ValidationError|ValueError|BadRequest|ValidationException|SchemaError|MarshmallowError/;
const LOGGING_CALL = /^\s*(?:(?:self\.)?(?:app\.)?(?:logger|logging|log|current_app\.logger)\.\w+|print)\s*\(/;

/** The name an `except … as NAME:` clause binds. */
function exceptionName(clause: SgNode): string | undefined {
  const m = /^except\b[^:]*\bas\s+(\w+)\s*:/.exec(clause.text());
  return m?.[1];
}

export function errorDetailsToClient({ file, root, handlers }: FileContext): Candidate[] {
  const findings: Candidate[] = [];
  const handlesRequests = handlers.length > 0 || /BaseHTTPRequestHandler|wfile\.write/.test(file.code);
  for (const clause of root.findAll({ rule: { kind: 'except_clause' } } as never)) {
    const name = exceptionName(clause);
    const block = clause.children().find((c) => c.kind() === 'block');
    // A validation error's message is written for the client: it says what was wrong with the input.
    if (!block || VALIDATION_ERROR.test(clause.text().split(':')[0])) continue;
    const formatsError = name
      ? new RegExp(`\\b(?:str|repr)\\s*\\(\\s*${name}\\s*\\)|\\{\\s*${name}\\s*(?:!r|!s)?\\}|\\{\\s*(?:str|repr)\\(${name}\\)\\s*\\}|\\b${name}\\.(?:args|message|msg)\\b|%\\s*\\(?\\s*${name}\\b|\\+\\s*${name}\\b|format\\s*\\([^)]*\\b${name}\\b|\\(\\s*${name}\\s*\\)`)
      : undefined;
    const leaks = (text: string) => /traceback\.format_exc|format_exception|print_exc\s*\(\s*file\s*=/.test(text) || (formatsError?.test(text) ?? false);
    const statements = block.findAll({ rule: { any: [{ kind: 'return_statement' }, { kind: 'expression_statement' }] } } as never);
    const later = clause.parent()?.parent()?.text() ?? '';
    const hit = statements.find((s) => {
      const text = s.text();
      if (LOGGING_CALL.test(text) || !leaks(text)) return false;
      if (!handlesRequests) return s.kind() === 'return_statement' && /,\s*\d{3}\s*\)?\s*$|^return\s*[({]/.test(text);
      if (s.kind() === 'return_statement' || RESPONSE_CALL.test(text)) return !/^\s*(?:raise|logger|logging)/.test(text);
      // `error = f"…{e}"`, shown later by the response that returns `error`.
      const assigned = /^\s*(\w+)\s*=/.exec(text)?.[1];
      return assigned !== undefined && new RegExp(`\\b(?:render_template|render|jsonify|return|Response|write|send)\\b[^\\n]*\\b${assigned}\\b`).test(later);
    });
    if (!hit) continue;
    // Outside request handlers, only what is returned in the shape of a response, in an application that has handlers.
    findings.push({
      needs: handlesRequests ? undefined : 'handlers-anywhere',
      finding: {
        checkId: 'python.deep.errors.error-details-to-client',
        severity: 'medium',
        category: 'sensitive-data',
        cwe: [CWE[209]],
        title: 'Exception details are sent to the client',
        message:
          'The text of a caught exception (or its stack trace) goes into the response. Error messages of databases and libraries ' +
          'disclose queries, paths, versions and data that help an attacker. Log the details on the server and answer with a generic ' +
          'message.',
        path: file.path,
        startLine: lineOf(hit),
        endLine: endLineOf(hit),
        text: hit.text(),
      },
    });
  }
  return findings;
}

/** A password taken from the request and stored as it came: a model field, an attribute or an SQL write. */
export function plaintextPasswordStorage({ root, handlers }: FileContext): Candidate[] {
  const findings: Candidate[] = [];
  for (const h of handlers) {
    if (!READS_PASSWORD.test(h.body) || HASHES_PASSWORD.test(h.body)) continue;
    const fn = handlerFunction(root, h);
    if (!fn) continue;
    const stores = fn.findAll({
      rule: {
        any: [
          { kind: 'keyword_argument', has: { field: 'name', regex: '^(?:password|passwd|pwd|password_hash)$' } },
          { kind: 'assignment', has: { field: 'left', kind: 'attribute', regex: '\\.(?:password|passwd|pwd)$' } },
          { kind: 'string', regex: '(?i)\\b(?:INSERT\\s+INTO|UPDATE)\\b[\\s\\S]*\\bpass(?:word|wd)?\\b' },
        ],
      },
    } as never);
    // A keyword argument stores only when it goes to a model's constructor or a create/insert/update call.
    const callee = (arg: SgNode) => arg.parent()?.parent()?.field('function')?.text() ?? '';
    const store = stores.find((s) => s.kind() !== 'keyword_argument' || STORING_CALL.test(callee(s)));
    if (!store) continue;
    findings.push({
      handler: h,
      finding: {
        checkId: 'python.deep.crypto.plaintext-password-storage',
        severity: 'high',
        category: 'crypto',
        cwe: [CWE[256]],
        title: 'Password stored as plain text',
        message:
          `${h.name} stores the password it receives without hashing it, so anyone who reads the database (a backup, an injection, an ` +
          'insider) has every password. Store a slow salted hash instead (werkzeug generate_password_hash, bcrypt, argon2, Django ' +
          'make_password) and compare with its check function.',
        path: h.file.path,
        startLine: lineOf(store),
        endLine: lineOf(store),
        text: store.text(),
      },
    });
  }
  return findings;
}

const PASSWORD_FIELD = /^(?:password|passwd|pwd|user_password)$/i;

/**
 * A model whose password column is filled in by an application that hashes no password anywhere: the
 * column holds them in clear.
 */
export function plaintextPasswordColumn({ file, root }: FileContext): Candidate[] {
  const findings: Candidate[] = [];
  for (const column of root.findAll({ rule: { kind: 'assignment', has: { field: 'right', kind: 'call', regex: '(?:Column|Field|CharField|TextField|StringField|String)\\s*\\(' } } } as never)) {
    const name = column.field('left')?.text() ?? '';
    if (!PASSWORD_FIELD.test(name) || !column.inside({ rule: { kind: 'class_definition' }, stopBy: 'end' } as never)) continue;
    findings.push({
      needs: 'no-password-hashing',
      finding: {
        checkId: 'python.deep.crypto.plaintext-password-column',
        severity: 'high',
        category: 'crypto',
        cwe: [CWE[256]],
        title: 'Passwords kept in clear in the database',
        message:
          `The model field ${name} holds passwords, and the application hashes no password anywhere, so they are stored as typed. ` +
          'Store a slow salted hash (werkzeug generate_password_hash, bcrypt, argon2, Django make_password) and check logins against it.',
        path: file.path,
        startLine: lineOf(column),
        endLine: lineOf(column),
        text: column.text(),
      },
    });
  }
  return findings;
}

/** A password (or its hash) put into what a model or handler serializes for clients: a dict key `password`. */
export function passwordInSerializedOutput({ file, root }: FileContext): Candidate[] {
  const findings: Candidate[] = [];
  for (const fn of root.findAll({ rule: { kind: 'function_definition', has: { field: 'name', regex: '^(?:serialize|serialized|to_dict|to_json|as_dict|json|__json__|dump|to_api)$' } } } as never)) {
    const pair = fn.find({ rule: { kind: 'pair', has: { field: 'key', regex: `^['"](?:password|passwd|pwd|password_hash)['"]$` } } } as never);
    if (!pair) continue;
    findings.push({
      finding: {
        checkId: 'python.deep.data.password-in-serialized-output',
        severity: 'high',
        category: 'sensitive-data',
        cwe: [CWE[200]],
        title: 'Serialized objects carry the password',
        message:
          `${fn.field('name')?.text()} puts the password into the data it serializes, so every response built from it hands the ` +
          'password (or its hash) to the client. Leave secrets out of what is serialized for clients.',
        path: file.path,
        startLine: lineOf(pair),
        endLine: lineOf(pair),
        text: pair.text(),
      },
    });
  }
  return findings;
}

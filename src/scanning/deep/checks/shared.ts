import type { SgNode } from '@ast-grep/napi';
import type { Handler, ProgramFile } from '../python-program.ts';
import type { Severity } from '../../../core/severity.ts';

// What the whole-application checks share: the finding they make, the CWEs they name, and how a per-file
// check reports a finding that depends on the rest of the program.

export interface ApplicationFinding {
  checkId: string;
  severity: Severity;
  category: string;
  cwe: string[];
  title: string;
  message: string;
  path: string;
  startLine: number;
  endLine: number;
  /** The code the finding is about, for its identity across scans. */
  text: string;
}

export const CWE = {
  307: 'CWE-307: Improper Restriction of Excessive Authentication Attempts',
  209: 'CWE-209: Generation of Error Message Containing Sensitive Information',
  352: 'CWE-352: Cross-Site Request Forgery (CSRF)',
  306: 'CWE-306: Missing Authentication for Critical Function',
  256: 'CWE-256: Plaintext Storage of a Password',
  200: 'CWE-200: Exposure of Sensitive Information to an Unauthorized Actor',
  639: 'CWE-639: Authorization Bypass Through User-Controlled Key',
  862: 'CWE-862: Missing Authorization',
  1333: 'CWE-1333: Inefficient Regular Expression Complexity',
};

/** The language part of a check id, from the file the finding is in: the model covers Python and JavaScript/TypeScript. */
export const checkPrefix = (path: string): 'python' | 'javascript' => (/\.py$/.test(path) ? 'python' : 'javascript');

/** Lines of each file where the static analysis found something serious: a handler holding one is dangerous to leave open. */
export type Hotspots = Record<string, number[]>;

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** A handler for administrators: reaching every user's records is its job, not a missing ownership check. */
export const ADMIN_ONLY = /admin|staff|superuser/i;
export const READS_PASSWORD = /passw|\bpwd\b|\bpasswd\b/i;
export const lineOf = (node: SgNode) => node.range().start.line + 1;
export const endLineOf = (node: SgNode) => node.range().end.line + 1;

const LOGIN_NAME = /(?:^|_)(?:log_?in|sign_?in|authenticate|auth)(?:_|$)|^login|^signin/i;
const LOGIN_PATH = /\/(?:log_?in|sign_?in|auth(?:enticate)?|token|session)s?\/?$/i;
/** A handler that starts a signed-in session or hands out a token. */
const SIGNS_IN =
  /session\s*\[[^\]]+\]\s*=|login_user\s*\(|remember\s*\(|authorized_userid|create_access_token|jwt\.encode|encode_auth_token|set_cookie\s*\(|auth\.login\s*\(|\blogin\s*\(\s*request|req\.session\.\w+\s*=|req\.login\s*\(|jwt\.sign\s*\(|res\.cookie\s*\(/;

/** Whether a handler takes part in signing in: it reads a password, and is named so or starts a session. */
export function isLoginHandler(h: Handler): boolean {
  if (!READS_PASSWORD.test(h.body)) return false;
  return LOGIN_NAME.test(h.name) || h.paths.some((p) => LOGIN_PATH.test(p)) || (SIGNS_IN.test(h.body) && !/regist|sign_?up|reset|change/i.test(h.name));
}

/** Whether a handler leaves the caller signed in: it starts a session or hands out a token or cookie. */
export const startsSignedInState = (h: Handler): boolean => SIGNS_IN.test(h.body);

export function answersStateChange(h: Handler): boolean {
  return h.methods.some((m) => STATE_CHANGING.has(m)) || /request\.method\s*==\s*['"](?:POST|PUT|PATCH|DELETE)['"]/.test(h.body);
}

/** A file as a per-file check sees it: its tree, while it is alive, and the handlers found in it. */
export interface FileContext {
  file: ProgramFile;
  root: SgNode;
  handlers: Handler[];
}

/**
 * A finding of a per-file check, with what it depends on in the rest of the program: decided once the
 * program is built (whether its handler counts and is guarded, whether any file handles requests, whether
 * the application hashes passwords anywhere).
 */
export interface Candidate {
  finding: ApplicationFinding;
  handler?: Handler;
  needs?: 'guarded' | 'handlers-anywhere' | 'no-password-hashing';
}

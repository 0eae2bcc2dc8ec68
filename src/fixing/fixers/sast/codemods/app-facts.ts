import { allowsBelow, packageBelow, pythonBelow as declaresPythonBelow } from '../../../repo-facts.ts';
import type { CodemodContext } from './codemod.ts';

// What a codemod needs to know about the application around the file it rewrites: the versions it
// declares for its framework and for Python (from the repository facts, repo-facts.ts), whether it is
// served over HTTPS, and what its pages' scripts read from document.cookie. Each answer errs on the side
// that keeps the app working: a declaration that allows a version older than an API is treated as that
// version, HTTPS is assumed only on evidence in the code or its server configuration.

type Facts = Pick<CodemodContext, 'readFile' | 'files' | 'facts'>;

const escapeName = (name: string) => name.replace(/[.*+?^${}()|[\]\\-]/g, (c) => (c === '-' ? '[-_.]' : `\\${c}`));

/** Whether the repository declares the package at all, pinned or not. */
export async function dependsOn(facts: Facts, name: string): Promise<boolean> {
  return (await facts.facts()).packages[name.toLowerCase()] !== undefined;
}

/**
 * The declaration of `name` (`==1.11.29`, `>=0.12`, `4.13.4`) when it allows a version older than
 * `minimum` (Django 1.11 against 2.1), else null: at or above it, or not declared with a version.
 */
export async function declaredBelow(facts: Facts, name: string, minimum: string): Promise<string | null> {
  const known = await facts.facts();
  return packageBelow(known, name, minimum) ? known.packages[name.toLowerCase()]!.spec : null;
}

/** Where the application is declared to run on (or written for) Python 2, or null. */
export async function pythonTwoEvidence(facts: Facts, text: string): Promise<string | null> {
  if (/^[ \t]*print[ \t]+(["'][^\n]*["']|[A-Za-z_][\w.]*)[ \t]*(%[^\n]*)?$/m.test(text) && !/from\s+__future__\s+import\s+print_function/.test(text)) return 'the file uses print statements';
  const python = (await facts.facts()).runtimes.python;
  return allowsBelow(python, '3') ? `${python!.source}${python!.source.startsWith('Python 2 syntax') ? '' : ` declares Python ${python!.spec}`}` : null;
}

/** Where the repository declares a Python older than `minimum` (3.7 for subprocess.run(text=)), or null. */
export async function pythonBelow(facts: Facts, text: string, minimum: string): Promise<string | null> {
  const two = await pythonTwoEvidence(facts, text);
  if (two) return two;
  const known = await facts.facts();
  const python = known.runtimes.python;
  return declaresPythonBelow(known, minimum) ? `${python!.source} declares Python ${python!.spec}` : null;
}

const SOURCE = /\.(py|js|mjs|cjs|ts|jsx|tsx|html?|jinja2?|j2|tpl|ejs|hbs|pug|vue|conf|ya?ml|toml|ini|cfg|json)$|(^|\/)(Dockerfile|Procfile|nginx[^/]*)$/i;
const SKIP = /(^|\/)(node_modules|\.git|\.?venv|site-packages|dist|build|vendor|bower_components)\//;
const MAX_SCANNED = 2000;

async function sources(facts: Facts, test: RegExp = SOURCE): Promise<string[]> {
  return (await facts.files()).filter((f) => test.test(f) && !SKIP.test(f)).slice(0, MAX_SCANNED);
}

/** Signs, in code or server configuration, that the app is served over HTTPS. */
const HTTPS_EVIDENCE: [RegExp, string][] = [
  [/\bSECURE_SSL_REDIRECT\s*=\s*True\b/, 'SECURE_SSL_REDIRECT = True'],
  [/\bSECURE_HSTS_SECONDS\s*=\s*[1-9]/, 'SECURE_HSTS_SECONDS'],
  [/\b(SESSION_COOKIE_SECURE|CSRF_COOKIE_SECURE)['"]?\s*\]?\s*=\s*True\b/, 'a Secure session or CSRF cookie setting'],
  [/\bSECURE_PROXY_SSL_HEADER\s*=/, 'SECURE_PROXY_SSL_HEADER'],
  [/\bTalisman\s*\(/, 'Flask-Talisman'],
  [/\bSSLify\s*\(/, 'Flask-SSLify'],
  [/\bHTTPSRedirectMiddleware\b/, 'HTTPS redirect middleware'],
  [/\bssl_context\s*=/, 'a TLS context for the server'],
  [/\bhttps\.createServer\s*\(/, 'an HTTPS server'],
  [/\blisten\s+443\s+ssl\b|\bssl_certificate\s+\S/, 'TLS in the web server configuration'],
  [/\bhsts\s*\(|\bstrictTransportSecurity\b/, 'HSTS'],
  [/x-forwarded-proto['"]?\s*\]?\s*(!==?|===?)\s*['"]https/i, 'an HTTPS redirect on X-Forwarded-Proto'],
];

/** What shows the app is served over HTTPS, or null when nothing does. */
export async function httpsEvidence(facts: Facts): Promise<string | null> {
  for (const file of await sources(facts)) {
    const text = await facts.readFile(file);
    if (!text) continue;
    const hit = HTTPS_EVIDENCE.find(([pattern]) => pattern.test(text));
    if (hit) return `${hit[1]} in ${file}`;
  }
  return null;
}

const SCRIPTED = /\.(js|mjs|cjs|ts|jsx|tsx|html?|jinja2?|j2|tpl|ejs|hbs|pug|vue)$/i;

/**
 * A file whose scripts read the cookie of that name from document.cookie, or null. A script that parses
 * document.cookie and names the cookie in the same file counts: the usual getCookie("csrftoken") helper.
 */
export async function scriptReadingCookie(facts: Facts, name: string): Promise<string | null> {
  const named = new RegExp(`['"\`]${escapeName(name)}['"\`=]|\\b${escapeName(name)}=`);
  for (const file of await sources(facts, SCRIPTED)) {
    const text = await facts.readFile(file);
    if (text && /document\.cookie(?!\s*=[^=])/.test(text) && named.test(text)) return file;
  }
  return null;
}

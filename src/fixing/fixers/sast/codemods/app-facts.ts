import type { CodemodContext } from './codemod.ts';

// What a codemod needs to know about the application around the file it rewrites, read from the
// repository: the versions it declares for its framework and for Python, whether it is served over
// HTTPS, and what its pages' scripts read from document.cookie. Each answer errs on the side that keeps
// the app working: a version is "below" only when the declaration rules the newer one out, HTTPS is
// assumed only on evidence in the code or its server configuration.

type Facts = Pick<CodemodContext, 'readFile' | 'files'>;

const DEPENDENCY_FILES = /(^|\/)(requirements[^/]*\.(txt|in)|Pipfile|pyproject\.toml|setup\.py|setup\.cfg|package\.json)$/;

/** The repository's dependency declarations, outermost first. */
async function dependencyTexts(facts: Facts): Promise<string[]> {
  const names = (await facts.files()).filter((f) => DEPENDENCY_FILES.test(f) && !/(^|\/)(node_modules|\.?venv|site-packages)\//.test(f));
  names.sort((a, b) => a.split('/').length - b.split('/').length);
  const texts: string[] = [];
  for (const name of names.slice(0, 20)) {
    const text = await facts.readFile(name);
    if (text) texts.push(text);
  }
  return texts;
}

const escapeName = (name: string) => name.replace(/[.*+?^${}()|[\]\\-]/g, (c) => (c === '-' ? '[-_.]' : `\\${c}`));

/** The version constraints a repository declares for a package (`==1.11.29`, `<2.0`, `~=0.12`, `^4.17.1`). */
export async function declaredConstraints(facts: Facts, name: string): Promise<string[]> {
  const found: string[] = [];
  const requirement = new RegExp(`^\\s*['"]?${escapeName(name)}(\\[[^\\]]*\\])?\\s*((?:[=<>!~]=?|===)\\s*[\\w.*]+(?:\\s*,\\s*(?:[=<>!~]=?)\\s*[\\w.*]+)*)`, 'gim');
  const toml = new RegExp(`^\\s*['"]?${escapeName(name)}['"]?\\s*=\\s*['"]([^'"]+)['"]`, 'gim');
  const json = new RegExp(`"${escapeName(name)}"\\s*:\\s*"([^"]+)"`, 'gi');
  for (const text of await dependencyTexts(facts)) {
    for (const m of text.matchAll(requirement)) found.push(m[2]!.replace(/\s+/g, ''));
    for (const m of text.matchAll(toml)) if (m[1] !== '*') found.push(m[1]!.replace(/\s+/g, ''));
    for (const m of text.matchAll(json)) found.push(m[1]!.replace(/\s+/g, ''));
  }
  return found;
}

/** Whether a dependency declaration names the package at all, pinned or not. */
export async function dependsOn(facts: Facts, name: string): Promise<boolean> {
  const listed = new RegExp(`^\\s*['"]?${escapeName(name)}(\\[[^\\]]*\\])?\\s*(['"]|[=<>!~;,\\s]|$)|"${escapeName(name)}"\\s*:`, 'im');
  return (await dependencyTexts(facts)).some((text) => listed.test(text));
}

const parts = (version: string) => version.split('.').map((p) => Number.parseInt(p, 10) || 0);
function compare(a: string, b: string): number {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/** Whether one constraint rules out every version from `minimum` on. */
function excludes(constraint: string, minimum: string): boolean {
  return constraint.split(',').some((clause) => {
    const m = /^(===|==|<=|<|~=|\^|~)?v?([\d][\w.*]*)$/.exec(clause.replace(/^=(?=\d)/, '=='));
    if (!m) return false;
    const [, op = '==', version] = m;
    const exact = version!.replace(/\.\*$/, '');
    if (op === '<') return compare(version!, minimum) <= 0;
    if (op === '<=') return compare(version!, minimum) < 0;
    if (op === '==' || op === '===') return version!.includes('*') ? compare(`${exact}.9999`, minimum) < 0 : compare(version!, minimum) < 0;
    // ~=1.4 allows 1.x, ~=1.4.2 allows 1.4.x; ^1.2 allows 1.x; ~1.2 allows 1.2.x.
    const fixed = op === '~=' ? parts(version!).slice(0, -1) : op === '^' ? parts(version!).slice(0, 1) : parts(version!).slice(0, 2);
    const highest = [...fixed, 9999].join('.');
    return compare(highest, minimum) < 0;
  });
}

/**
 * The version the repository declares for `name` when it rules out `minimum` and everything later
 * (`Django==1.11.29` against 2.1), else null: unpinned, unlisted or allowing it.
 */
export async function declaredBelow(facts: Facts, name: string, minimum: string): Promise<string | null> {
  return (await declaredConstraints(facts, name)).find((c) => excludes(c, minimum)) ?? null;
}

/** Evidence that the application runs on Python 2 (a declared runtime, classifiers, print statements), or null. */
export async function pythonTwoEvidence(facts: Facts, text: string): Promise<string | null> {
  if (/^[ \t]*print[ \t]+(["'][^\n]*["']|[A-Za-z_][\w.]*)[ \t]*(%[^\n]*)?$/m.test(text) && !/from\s+__future__\s+import\s+print_function/.test(text)) return 'the file uses print statements';
  const runtime = (await facts.readFile('runtime.txt')) ?? '';
  if (/python-2\./.test(runtime)) return `runtime.txt declares ${runtime.trim()}`;
  const pipfile = (await facts.readFile('Pipfile')) ?? '';
  if (/python_version\s*=\s*["']2\./.test(pipfile)) return 'the Pipfile declares Python 2';
  const setup = (await facts.readFile('setup.py')) ?? '';
  if (/Programming Language :: Python :: 2/.test(setup) && !/Programming Language :: Python :: 3/.test(setup)) return 'setup.py declares Python 2 only';
  if (/python_requires\s*=\s*["'][^"']*<\s*3/.test(setup)) return 'setup.py requires Python below 3';
  const dockerfile = (await facts.readFile('Dockerfile')) ?? '';
  if (/^\s*FROM\s+\S*python:2/im.test(dockerfile)) return 'the Dockerfile runs Python 2';
  return null;
}

/** The Python version the repository declares for its runtime (runtime.txt, .python-version, Pipfile, Dockerfile), and where. */
async function declaredPython(facts: Facts): Promise<{ version: string; where: string } | null> {
  const sources: [string, RegExp][] = [
    ['runtime.txt', /python-(\d+\.\d+)/],
    ['.python-version', /^\s*(\d+\.\d+)/m],
    ['Pipfile', /python_version\s*=\s*["'](\d+\.\d+)/],
    ['Dockerfile', /^\s*FROM\s+\S*python:(\d+\.\d+)/im],
  ];
  for (const [file, pattern] of sources) {
    const found = pattern.exec((await facts.readFile(file)) ?? '');
    if (found) return { version: found[1]!, where: file };
  }
  return null;
}

/** Where the repository declares a Python older than `minimum` (3.7 for subprocess.run(text=)), or null. */
export async function pythonBelow(facts: Facts, text: string, minimum: string): Promise<string | null> {
  const two = await pythonTwoEvidence(facts, text);
  if (two) return two;
  const declared = await declaredPython(facts);
  return declared && compare(declared.version, minimum) < 0 ? `${declared.where} declares Python ${declared.version}` : null;
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

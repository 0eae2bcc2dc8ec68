import path from 'node:path';
import type { LocatedSecret } from './secret-location.ts';
import { codeParserFor, deepestNodeCovering, kindOf, parseCode } from '../shared/syntax.ts';

// Secrets the fixer must not move to the environment: values that are no credential at all, and
// credentials in code that runs in a browser, where no environment can keep them from the user.

/** Rules that match by a keyword next to any value, so a test's made-up value matches them too. */
const KEYWORD_RULES = /^generic-/;

const TEST_PATH = /(?:^|\/)(?:tests?|spec|specs|__tests__|__mocks__|fixtures?|testdata|test_data|mocks?)\/|(?:^|\/)(?:test_[^/]*\.py|[^/]*_test\.(?:py|go|rb)|[^/]*\.(?:test|spec)\.[cm]?[jt]sx?|conftest\.py)$/i;

/** Keys published in vendors' documentation, and values that say they stand in for one. */
const PUBLIC_EXAMPLES = new Set(['AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'sk_test_4eC39HqLyjWDarjtT1zdp7dc', 'pk_test_TYooMQauvdEDq54NiTphI7jx']);
const PLACEHOLDER = /EXAMPLE|x{6,}|X{6,}|^your[_-]|changeme|placeholder|dummy|<[^>]*>/;

const DIGEST = /^(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{96}|[0-9a-f]{128}|[0-9A-F]{32}|[0-9A-F]{40}|[0-9A-F]{64}|[0-9A-F]{96}|[0-9A-F]{128})$/;
/** Code that compares against a digest or names one. */
const DIGEST_CONTEXT = /==|!=|\bcompare_digest\b|hexdigest|\bdigest\b|hash|checksum|\bsha\d*|\bmd5|fingerprint|\bin\s*[[({]/i;

/** Code that signs or encrypts with the value: a stand-in there (`SECRET_KEY = 'your-secret-key-here'`) is the key in use. */
const SIGNING_KEY_CONTEXT = /secret[_-]?key|secretkey|jwt[_-]?(?:secret|key)|session[_-]?(?:secret|key)|signing[_-]?key|cookie[_-]?secret|\bsecret\b\s*["'`]?\s*[:=,]|\bsecret_key\b|\.secret_key\b|\bkeys\s*[:=]/i;
const CODE_FILES = /\.(?:py|[cm]?[jt]sx?|rb|php|go|java|kt|cs)$/i;
/** A flag of a capture-the-flag exercise: the prize of the challenge, not a key to anything. */
const CTF_FLAG = /^(?:flag|ctf|[A-Za-z]{2,10}ctf)\{[^}]+\}$/i;

/** Why the secret is not a credential to move, or null when it is one. */
export function notACredential(file: string, text: string, secret: LocatedSecret): string | null {
  const value = text.slice(secret.start, secret.end);
  if (PUBLIC_EXAMPLES.has(value)) return 'the value is a published example, not a credential';
  if (PLACEHOLDER.test(value) && !(CODE_FILES.test(file) && SIGNING_KEY_CONTEXT.test(lineAround(text, secret)))) {
    return 'the value is a placeholder, not a credential';
  }
  if (CTF_FLAG.test(value)) return 'the value is the flag of a capture-the-flag exercise, not a credential';
  const expired = expiredToken(value);
  if (expired) return expired;
  if (DIGEST.test(value)) {
    const line = lineAround(text, secret);
    if (path.posix.basename(file) === '.secrets.baseline' || DIGEST_CONTEXT.test(line)) {
      return 'the value is a hash digest the code compares against or records, not a credential';
    }
  }
  if (KEYWORD_RULES.test(secret.rule.id) && TEST_PATH.test(file)) return 'the value is a test fixture, not a credential';
  return null;
}

/**
 * Why the secret is one of several passwords written into one string (an XML or JSON table of user
 * records the app loads as its data), or null: those are accounts of the app's users, not a credential
 * the code uses, and no single variable can stand for the table.
 */
export function accountsTable(file: string, text: string, secret: LocatedSecret, all: LocatedSecret[]): string | null {
  const parser = codeParserFor(file);
  if (!parser) return null;
  let node: ReturnType<typeof parseCode> | null = deepestNodeCovering(parseCode(parser, text), secret.start, secret.end);
  while (node && !/string/.test(kindOf(node))) node = node.parent();
  if (!node || /string_content|fragment/.test(kindOf(node))) node = node?.parent() ?? null;
  if (!node) return null;
  const { start, end } = { start: node.range().start.index, end: node.range().end.index };
  const values = new Set(all.filter((s) => s.rule.id === secret.rule.id && s.start >= start && s.end <= end).map((s) => text.slice(s.start, s.end)));
  if (values.size < 2) return null;
  return `the value is one of ${values.size} passwords of user records written into one string, data of the app's accounts rather than a credential the code uses; if those accounts exist anywhere that matters, change their passwords there and load the records from outside the code`;
}

/** A JSON Web Token whose `exp` is past: it opens nothing any more, and the key that signed it is not in it. */
function expiredToken(value: string): string | null {
  const parts = /^eyJ[\w-]*\.(eyJ[\w-]*)\.[\w-]*$/.exec(value);
  if (!parts) return null;
  try {
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as { exp?: unknown };
    if (typeof payload.exp === 'number' && payload.exp * 1000 < Date.now()) {
      return `the value is a token that expired on ${new Date(payload.exp * 1000).toISOString().slice(0, 10)}, which grants nothing and holds no key`;
    }
  } catch {
    // not a token after all
  }
  return null;
}

const BROWSER_FOLDERS = /(?:^|\/)(?:static|public|assets|wwwroot|www|htdocs|webroot|web-root)\//i;
const SCRIPT_FILES = /\.(?:[cm]?js|jsx|ts|tsx|vue|svelte)$/i;
const PAGES = /\.(?:html?|xhtml|vue|svelte|php|phtml|erb|ejs|hbs|handlebars|mustache|jinja2?|j2|njk|twig|jsp|aspx|cshtml|razor)$/i;
const NODE_CONTEXT = /\brequire\s*\(|\bmodule\.exports\b|\bexports\.\w|\bprocess\.\w|from\s+["']node:|\b__dirname\b|^\s*import\s[^;]*from\s/m;
const BROWSER_CONTEXT = /\b(?:document|window|localStorage|sessionStorage|navigator|XMLHttpRequest|jQuery)\b|\$\(/;

/** Why the secret sits in code served to browsers, or null when the code runs on a server. */
export function servedToBrowsers(file: string, text: string, secret: LocatedSecret): string | null {
  if (PAGES.test(file) && insideScriptElement(text, secret.start)) return `it is in a <script> element of ${path.posix.basename(file)}, which the browser runs`;
  if (!SCRIPT_FILES.test(file)) return null;
  if (BROWSER_FOLDERS.test(file) || /\.min\.js$/i.test(file)) return `${file} is served to browsers as it is`;
  if (/\.[cm]?js$/i.test(file) && !NODE_CONTEXT.test(text) && BROWSER_CONTEXT.test(text)) return `${path.posix.basename(file)} is browser code (it uses the page, not Node)`;
  return null;
}

function insideScriptElement(text: string, offset: number): boolean {
  const before = text.slice(0, offset).toLowerCase();
  const open = before.lastIndexOf('<script');
  return open !== -1 && before.lastIndexOf('</script') < open;
}

function lineAround(text: string, secret: LocatedSecret): string {
  const start = text.lastIndexOf('\n', secret.start) + 1;
  const end = text.indexOf('\n', secret.end);
  return text.slice(start, end === -1 ? text.length : end);
}

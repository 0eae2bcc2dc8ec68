// The context detectors: credentials recognised by where they are written rather than by a token format.
//
// - Assignments (`generic-secret-assignment`): a value under a name that says it is a password, secret,
//   token or API key, quoted (`password = "…"`, `"apiKey": "…"`, `app.config['SECRET_KEY'] = '…'`,
//   `os.environ.get("X", "…")`, `process.env.X || "…"`), or unquoted where a config syntax allows it
//   (`.env`, `.properties`, YAML, TOML, INI, Dockerfile `ENV`/`ARG`, `.npmrc`, a commented-out line),
//   declared with a type (`API_TOKEN: &str = "…"`, `let key: String = "…"`), a string prefix (`@"…"`,
//   `r"…"`), `#define NAME "…"`, an EDN keyword, a command-line option, or as the default of an env
//   lookup in C#, Kotlin, Rust, Ruby and Make (`?? "…"`, `?: "…"`, `.unwrap_or("…")`, `||=`, `?=`);
//   and written in XML (`<password>…</password>`, `key="ClearTextPassword" value="…"`, an HTML
//   `<meta name content>`), property lists, Markdown tables, SQL `INSERT … VALUES`, `.netrc`, `.pgpass`
//   and Terraform `variable` defaults; as a setter call's arguments (`put("api_key", "…")`), a brace
//   initialiser, a Gradle string in a string, Elixir `config`, PowerShell backtick escapes, a command-line
//   option (`--password=…`) and a CSV row. Each finding keeps the name it was read under, so the detector
//   can ask the provider rules whether that name says whose credential it is. The key's name lets a human password through
//   (`Tiger2020!`); placeholders, references and code never pass.
// - HTTP credentials: `Authorization: Bearer|Basic|Token …` headers and curl's `-u user:password`.
// - Connection strings (`connection-string-password`): `scheme+driver://user:password@host` URLs of
//   databases, queues, caches and file servers, JDBC (`?password=`, `;password=`) and ADO.NET
//   (`Password=…;`) strings.
import { decodeBase64Text, decodeUrlComponent, unescapeJsonString } from './decoders.ts';
import { SECRET_RULES, type SecretRule } from './rules.ts';
import { isPlaceholder, isWordIdentifier, shannonEntropy } from './text-checks.ts';

export interface ContextMatch {
  rule: SecretRule;
  /** The credential as written in the text. */
  secret: string;
  offset: number;
  /** The name the value is written under, when the detector read one (`db_password`, `TwilioAuthToken`). */
  key?: string;
}

const GENERIC_ID = 'generic-secret-assignment';
export const GENERIC_RULE: SecretRule = SECRET_RULES.find((r) => r.id === GENERIC_ID) ?? {
  id: GENERIC_ID,
  title: 'Hard-coded password or secret',
  severity: 'medium',
  keywords: ['pass', 'pwd', 'secret', 'token', 'api_key', 'apikey', 'api-key', 'credential', 'auth_key', 'private_key'],
  pattern: /(?!)/,
  entropy: 3.5,
  sample: 'db_password = "{a:24}"',
};

/** Passwords inside connection strings; found by code here, so its pattern is never run. */
export const CONNECTION_STRING_RULE: SecretRule = {
  id: 'connection-string-password',
  title: 'Password in a connection string',
  severity: 'high',
  keywords: ['://', 'password=', 'pwd='],
  pattern: /(?!)/,
  entropy: 0,
  sample: 'mysql+pymysql://app:{a:16}@db.internal:3306/app',
};

/**
 * Words that make a following `key` a secret's name: `api_key`, `accessKey`, `AccountKey`, `storage-key`,
 * `write_key` (Segment), `record-key` (Cypress), `subscription_key`, `hmac_key`, `server_key`.
 */
const KEY_WORDS = [
  'api', 'private', 'access', 'admin', 'master', 'signing', 'encryption', 'role', 'account', 'storage', 'write', 'record',
  'shared', 'subscription', 'hmac', 'server', 'ingest',
];
/** A personal access token under its provider's name: `GITLAB_PAT=`, `:clarifai-pat "…"`, `"github_pat":`. */
const PAT_KEYWORDS = ['_pat', '-pat'].flatMap((p) => ['=', '"', "'", ':', ' ', '\t', '}', '\x60'].map((end) => p + end));
/** The keywords, lowercase, one of which must occur before the assignment detector runs. */
export const ASSIGNMENT_KEYWORDS = [
  'pass', 'pwd', 'secret', 'token', 'apikey', 'api_key', 'api-key', 'credential', 'creds', '_auth',
  'api.key',
  ...KEY_WORDS.filter((w) => w !== 'api').flatMap((w) => [`${w}key`, `${w}_key`, `${w}-key`, `${w}.key`]),
  ...PAT_KEYWORDS,
];
/** The keywords of the connection-string, config-file and HTTP-credential detectors. */
export const CONTEXT_KEYWORDS = ['://', 'password=', 'pwd=', 'machine', 'variable', 'authorization', 'curl'];

/** Stretches of a text around keywords, whole lines; undefined for the whole text. */
export type Windows = [number, number][] | undefined;
export type WindowsFor = (keywords: string[], margin: number) => Windows;

/** Runs a global regex over the windows of a text (or all of it), calling back with each match and its offset. */
export function execIn(pattern: RegExp, text: string, windows: Windows, each: (m: RegExpExecArray, base: number) => boolean | void): void {
  for (const [from, to] of windows ?? [[0, text.length]]) {
    const part = from === 0 && to === text.length ? text : text.slice(from, to);
    pattern.lastIndex = 0;
    for (let m = pattern.exec(part); m; m = pattern.exec(part)) {
      // A match turned down (`false`) may have run over the start of the next one: look again just after it.
      if (m[0].length === 0 || each(m, from) === false) pattern.lastIndex = m.index + 1;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// names

/** A key split into lowercase words: `spring.datasource.password`, `dbPassword`, `_authToken`, `X-API-KEY`. */
function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const SECRET_WORD = new RegExp(
  String.raw`^(?:pass(?:w(?:or)?d)?s?\d?|pwd|passphrase|secrets?|tokens?|credentials?|creds|(?:${KEY_WORDS.join('|')}|auth|secret)keys?|authtoken|accesstoken|apitoken)$`,
);
const KEY_QUALIFIER = new Set([...KEY_WORDS, 'auth', 'secret', 'client', 'app', 'session']);
/** A last word that makes the name about a secret rather than the secret: `password_reset_url`, `token_type`. */
const NOT_THE_SECRET_LAST = new Set(
  ('url uri urls endpoint path file filename files dir directory name names type types id ids length len min max count ' +
    'expiry expires expiration expire exp ttl timeout lifetime age field fields label prompt hint policy regex pattern ' +
    'header headers prefix suffix format env var variable ref ref1 hash hashed digest checksum sha sha1 sha256 sha512 md5 ' +
    'fingerprint salt validator validation strength reset changed algorithm alg enabled enable disabled required mode size ' +
    'version method param params query placeholder text message msg error errors title description desc help schema class kind ' +
    'location source provider store manager service handler factory helper callback fn func function rotation encoding ' +
    'encoder decoder parser generator index idx attr attribute attributes input form widget button link route page view ' +
    'template module status state flag list map set array limit duration seconds level scope scopes audience issuer ' +
    'usage counter number num chars bytes bits mask style class cls key_id length_min length_max').split(' '),
);
/** A word anywhere in the name that says the value is not a usable credential. */
const NOT_A_CREDENTIAL = new Set(
  'hash hashed digest checksum fingerprint sha1 sha256 sha512 md5 bcrypt csrf xsrf pattern regex validator placeholder label prompt hint length policy example sample dummy fake mock test tests'.split(' '),
);

/** Whether a key names a credential: a password, secret, token or API key, and not a setting about one. */
export function isSecretName(key: string): boolean {
  const words = keyWords(key);
  if (!words.length || words.some((w) => NOT_A_CREDENTIAL.has(w) || /^sha\d*$/.test(w))) return false;
  const last = words.at(-1)!;
  if (NOT_THE_SECRET_LAST.has(last)) return false;
  if (words.some((w) => SECRET_WORD.test(w))) return true;
  // `api_key`, `auth_key`, `secret_key`, `clientSecret`; `_auth` as .npmrc writes it
  if (words.some((w, i) => i > 0 && w === 'key' && KEY_QUALIFIER.has(words[i - 1]))) return true;
  // `gitlab_pat`, `clarifai-pat`: a personal access token under its provider's name
  if (words.length > 1 && last === 'pat') return true;
  return /^_auth$/i.test(key);
}

// ---------------------------------------------------------------------------------------------------------
// values

/** Placeholders people write for a password: `changeme`, `password123`, `admin`, `secret`, `your_token_here`. */
const WEAK = new RegExp(
  String.raw`^(?:my|your|the|some|super|top|new|old|default|dev|local|db|admin|user|app|a)?[_.-]?` +
    String.raw`(?:pass(?:w(?:or)?d)?|pwd|secret|token|key|api[_-]?key|admin(?:istrator)?|root|user(?:name)?|guest|test(?:ing)?|demo|` +
    String.raw`qwerty|letmein|welcome|foo(?:bar)?|bar|baz|hunter|changeit|change[_-]?me|s3cr3t|p[a@]s?sw[o0]rd|t[o0]k[e3]n|secure|private|access|` +
    String.raw`abc|abcd|abcdef|none|null|empty|blank|todo|tbd|fixme|required|optional|string|value|xyz)` +
    String.raw`[_.-]?(?:\d{1,8}|here|value|goes[_-]?here|xyz|abc)?[!@#$.*?]*$`,
  'i',
);
/** A word closed by a full stop is a message about the value (`'Password': 'Updated.'`), not the value. */
const SENTENCE = /^[A-Z][a-z]+\.$/;
/** A password hash in crypt or Django format (`$2b$12$…`, `$argon2id$…`, `pbkdf2_sha256$…`): what a store keeps in place of the password. */
const PASSWORD_HASH = /^(?:\$(?:2[abxy]|argon2(?:id|i|d)|[156])\$|(?:pbkdf2_sha\d+|bcrypt_sha256|argon2)\$)/;
const TEST_WORD = /(?<![a-z])(?:test|mock|demo|stub|bogus|invalid|wrong|bad|incorrect|secret|password|passwd|token)(?:ing|ed|s)?(?![a-z])/i;
/** References to a value held elsewhere: variables, templates, lookups, tags, YAML anchors. */
const REFERENCE = new RegExp(
  [
    String.raw`^\$[A-Za-z_{(]`, String.raw`\$\{`, String.raw`\$\(`, String.raw`\{\{`, String.raw`\}\}`, '<%', '%>', String.raw`#\{`,
    String.raw`%\{`, String.raw`^%[A-Za-z_]\w*%$`, String.raw`^\{[^{}]*\}$`, String.raw`^\[.*\]$`, String.raw`process\.env`,
    String.raw`environ`, 'getenv', String.raw`ENV\[`, String.raw`System\.getenv`, String.raw`^secrets?\.`, '^vault:', '^arn:',
    String.raw`^ref\+`, '^#/', '::', '->', String.raw`\?\.`, String.raw`^(?:true|false|null|nil|none|undefined|yes|no|on|off)$`,
  ].join('|'),
  'i',
);
/** In an unquoted value: YAML anchors and tags, decorators, shell and batch variables. */
const UNQUOTED_REFERENCE = /^[&*!@%$]/;
/** Code between two string literals, read as a value when the name was inside the first: `"Password:"),x?f(` */
const BETWEEN_STRINGS = /^[),;\]}+?:|&]|[(,+]$/;
/**
 * A regular expression's group, a character class with a repetition, or a printf slot: a pattern or a
 * template (`r'(?=\^?[%s])'`, `"[0-9A-Fa-f]{1,4}"`), not a credential.
 */
const REGEX_OR_FORMAT = /\(\?(?:[:=!]|<[=!])|\[[^\]\s]{1,40}\](?:\{\d{1,3}(?:,\d{0,3})?\}|[*+])|%[sd](?![A-Za-z0-9])/;
/** A URN (`urn:uuid:…`, a WebDAV lock token): a name for something, not a credential. */
const URN = /^urn:[a-z0-9][a-z0-9-]{0,31}:/i;
const CALL = /^(?:new\s*)?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\(.*\)[;,]?$/;
const INDEXED = /^[A-Za-z_$][\w$.]*\[[^\]]*\][;,]?$/;
const PATH = /^(?:\.{0,2}\/|~\/|[A-Za-z]:\\|[a-z][a-z0-9+.-]*:\/\/)|\.(?:pem|key|crt|cer|der|p12|pfx|jks|json|ya?ml|txt|env|pub|gpg|asc|keystore|properties|conf|cfg|ini|xml|js|ts|py|html?)$/i;
const LOWER_PATH = /^[a-z0-9_.-]+(?:\/[a-z0-9_.-]+)+\/?$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4}){2,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const EMAIL = /^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$/;
const NUMERIC = /^[\d.,:_+-]+[a-z]{0,2}$/i;

/** `settings.SECRET`, `config.db.password`, `self._token`: words of letters joined by dots, a reference. */
export function isDottedIdentifier(value: string): boolean {
  const parts = value.split('.');
  if (parts.length < 2) return false;
  return parts.every((p) => /^[A-Za-z_$]+$/.test(p) && (p.replace(/^[_$]+/, '').length <= 1 || isWordIdentifier(p.replace(/^\$+/, ''))));
}

/**
 * An identifier made of words: `user_token_2`, `userToken2`, `tokenV2Key`, `sha256Digest`. Two capitalised
 * words and digits (`SunnyDay77`) read as a password people choose.
 */
function isCompoundIdentifier(value: string): boolean {
  if (!/^[A-Za-z_$][\w$-]*$/.test(value)) return false;
  if (/[_$]/.test(value)) return true;
  const words = value.split(/-+|(?<=[a-z0-9])(?=[A-Z])/).filter(Boolean);
  return words.length >= 3 || (words.length === 2 && /^[a-z]/.test(value));
}

function characterClasses(value: string): number {
  let lower = 0, upper = 0, digit = 0, other = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 97 && c <= 122) lower = 1;
    else if (c >= 65 && c <= 90) upper = 1;
    else if (c >= 48 && c <= 57) digit = 1;
    else other = 1;
  }
  return lower + upper + digit + other;
}

const normal = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Values published in providers' documentation as examples. */
const DOCUMENTED_EXAMPLES = new Set([
  '123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11', // Telegram Bot API
  'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', // AWS
  '2YotnFZFEjr1zCsicMWpAA', 'tGzv3JOkF0XG5Qx2TlKWIA', 'SplxlOBeZQQYbYS6WxSbIA', // RFC 6749 (OAuth 2.0)
  'czZCaGRSa3F0MzpnWDFmQmF0M2JW', 'gX1fBat3bV', 'mF_9.B5f-4.1JqM', // RFC 6749 client credentials, RFC 6750 bearer token
  '0685bd9184jfhq22', 'ad180jjd733klru7', 'kd94hf93k423kf44', 'pfkkdhi9sl3r4s00', 'nnch734d00sl2jdk', 'hh5s93j4hdidpola', 'hdk48Djdsa', 'xyz4992k83j47x0b', // RFC 5849 (OAuth 1.0)
]);
/** Names of values a person chooses (a password) rather than one a machine generates (a token). */
const CHOSEN = /pass|pwd|secret/i;

export interface ValueContext {
  key: string;
  quoted: boolean;
  /** Shortest value that can pass: 8 for assignments, less where the syntax says it is a password. */
  minLength?: number;
  /** The value was decoded from base64 already. */
  decoded?: boolean;
}

/**
 * Whether a value under a credential's name is a credential: not a placeholder, a reference, code, a path,
 * a number or a name, and mixed enough (two character classes, not one repeated pattern). Human passwords
 * (`Tiger2020!`) pass; the name has already said what the value is.
 */
export function isCredentialValue(value: string, context: ValueContext): boolean {
  if (value.length < (context.minLength ?? 8) || value.length > 200) return false;
  if (/[^\x21-\x7e]/.test(value)) return false;
  if (isPlaceholder(value) || WEAK.test(value) || REFERENCE.test(value) || SENTENCE.test(value) || PASSWORD_HASH.test(value)) return false;
  if (!context.quoted && UNQUOTED_REFERENCE.test(value)) return false;
  if (REGEX_OR_FORMAT.test(value)) return false;
  if (BETWEEN_STRINGS.test(value) || CALL.test(value) || INDEXED.test(value) || isDottedIdentifier(value) || isWordIdentifier(value)) return false;
  if (PATH.test(value) || LOWER_PATH.test(value) || URN.test(value) || EMAIL.test(value) || NUMERIC.test(value)) return false;
  if (characterClasses(value) < 2) return false;
  const entropy = shannonEntropy(value);
  if (entropy < 2.5) return false;
  if (entropy < 3.5 && (TEST_WORD.test(value) || isCompoundIdentifier(value))) return false;
  // A token or key is generated: a short, plain one next to such a name is an example, not a credential.
  if (entropy < 3.5 && value.length < 16 && !CHOSEN.test(context.key)) return false;
  if (DOCUMENTED_EXAMPLES.has(value)) return false;
  // Base64 of text (`.npmrc` `_auth`, `_password`): judge the password it holds (`user:password`).
  const decoded = BASE64.test(value) ? decodeBase64Text(value) : undefined;
  if (decoded && !decoded.includes('\n') && !context.decoded) {
    return isCredentialValue(decoded.slice(decoded.indexOf(':') + 1), { key: 'password', quoted: true, minLength: 6, decoded: true });
  }
  const bare = normal(value);
  const name = normal(context.key);
  if (bare === name || (bare.length >= 4 && name.endsWith(bare))) return false;
  return true;
}

/** Last words of a name for who or where rather than a secret: `username`, `db_host`, `smtp-port`, `tls.crt`. */
const IDENTITY_LAST = new Set(
  ('user username usr login email mail host hostname server port address addr database db dbname schema region zone bucket ' +
    'namespace project tenant domain account org organization owner realm cluster endpoint crt cert certificate ca pub public ' +
    'issuer audience subject sender from to channel topic queue table instance container repo repository branch image tag').split(' '),
);

/**
 * Whether a value in a Kubernetes Secret's `data:` or `stringData:` is a credential whatever its key is
 * called (`extra`, `config`, `DB_PASS`): the key is not one for who or where, nor about a secret rather
 * than the secret, and the value passes as a password would.
 */
export function isSecretDataValue(key: string, value: string, decoded: boolean): boolean {
  const words = keyWords(key);
  if (!words.length) return false;
  const last = words.at(-1)!;
  if (IDENTITY_LAST.has(last) || NOT_THE_SECRET_LAST.has(last)) return false;
  if (words.some((w) => NOT_A_CREDENTIAL.has(w))) return false;
  return isCredentialValue(value, { key: 'secret', quoted: true, decoded });
}

// ---------------------------------------------------------------------------------------------------------
// assignments

const ASSIGNMENT = new RegExp(
  String.raw`(?:pass|pwd|secret|token|(?:${KEY_WORDS.join('|')})[_.-]?key|credential|creds|_auth|[_-]pat(?![a-z0-9]))([\w.$-]{0,40}?)(\x60"|\\?["'\x60])?(?:\[\]|[\])}])?` +
    String.raw`(?:[ \t]*(=>|:=|\|\|=|\?\?=|\?=|<-|\|\||\?\?|\?:|\.unwrap_or(?:_else)?\([ \t]*(?:\|[^|\n]{0,8}\|)?|=|:[ \t]*&?(?:'static[ \t]+)?[A-Za-z_][\w.:<>\[\]]*\??[ \t]*=(?=[ \t]*(?:@|[rRbBuU]{1,2})?["'])|:|\{(?=[ \t]*["']))[ \t]*(?:(?:@|[rRbBuU]{1,2})(?=["']))?|([ \t]+)|(?<=["'\w])[ \t]*(,)[ \t]*(?:default[ \t]*=[ \t]*)?)` +
    String.raw`(?:"((?:[^"\\\s]|\\[\\/u])+)"|'([^'\s]+)'|\x60"([^"\x60\s]+)\x60"|\x60([^\x60\s]+)\x60|\\"((?:[^"\\\s]|\\[\\/u])+)\\"|"\\"((?:[^"\\\s]|\\[\\/u])+)\\""|([^\s"'\x60=<>|&,;(){}[\]\\][^\s"'\x60\\]*))`,
  'gid',
);
const KEY_CHAR = /[\w.$-]/;
/** What may come before an unquoted assignment's name on its line: nothing, `export`, `ENV`, a list dash, a comment. */
const UNQUOTED_PREFIX = /^[ \t]*(?:(?:export|ENV|ARG|set|setx|declare|readonly)[ \t]+|-[ \t]+|(?:#+|\/\/+|\/\*+|\*|--|;|<!--|REM[ \t])[ \t]*(?:(?:export|ENV|ARG|set)[ \t]+|-[ \t]+)?|\\?["']|\/\/[^\s:]*:)?$/i;
/**
 * Where a name and its quoted value stand apart with only spaces between: C `#define NAME "…"`, a Clojure
 * or EDN keyword (`:api-key "…"`), a command-line option (`--api-token '…'`).
 */
const SPACED_NAME = /^[ \t]*#[ \t]*define[ \t]+$|(?:^|[\s{(\[,])::?$/;
const COMMENT_PREFIX = /^[ \t]*(?:#|\/\/|\/\*|\*|--|;|<!--|REM[ \t])/i;
/** After an unquoted value: the end of the line, a comment, or the end of a JSON string (notebooks). */
const UNQUOTED_REST = /^[ \t]*(?:$|#|\/\/|\\[nr]|",?[ \t]*$)/;
const ENV_DEFAULT_CALL = /(?:get(?:env|Property|_env)?|fetch|setdefault|Getenv|GetEnvironmentVariable|env)[ \t]*\([ \t]*\\?$/;
/** Calls that store a value under a name given first: `put("api_key", "…")`, `Add("AccountKey", "…")`, `os.Setenv`, `define`. */
const SETTER_CALL = /(?:^|[^\w$])(?:add|put|set|append|insert|with|header|option|param|define|store|save|register|config(?:ure)?|env|of|property|field|entry|arg)\w*[ \t]*\([ \t]*\\?$/i;
/** Gradle's `buildConfigField("String", "API_KEY", "\"…\"")` and `resValue "string", "api_key", "…"`. */
const GRADLE_FIELD = /\b(?:buildConfigField|resValue)[ \t]*\(?[ \t]*["'][^"'\n]*["'][ \t]*,[ \t]*$/;
/** Elixir's `config :app, :secret_key_base, "…"` (and `config :app, Mod, :key, "…"`). */
const ELIXIR_CONFIG = /^[ \t]*config[ \t]+:\w+[ \t]*,[ \t]*(?:[\w.]+[ \t]*,[ \t]*)?:$/;
const CSV_FILE = /\.(?:csv|tsv)$/i;
const CODE_FILE = /\.(?:[cm]?[jt]sx?|py|pyi|rb|go|java|kt|kts|scala|swift|rs|c|h|cc|cpp|hpp|cs|php|pl|pm|lua|dart|m|mm|groovy|ex|exs|erl|clj|r|jl|vue|svelte)$/i;

/** How far around a match the detectors look for its line's ends: more is a minified line, read no further. */
const LINE_REACH = 400;

/** The bounds of the line around `at`, cut to LINE_REACH characters either side. */
function lineBounds(text: string, at: number): [number, number] {
  let start = at;
  const stop = Math.max(0, at - LINE_REACH);
  while (start > stop && text.charCodeAt(start - 1) !== 10) start--;
  const end = text.indexOf('\n', at);
  return [start, end === -1 || end - at > LINE_REACH ? Math.min(text.length, at + LINE_REACH) : end];
}

function assignments(text: string, filePath: string | undefined, windows: Windows, out: ContextMatch[]): void {
  const code = filePath !== undefined && CODE_FILE.test(filePath);
  const csv = filePath !== undefined && CSV_FILE.test(filePath);
  execIn(ASSIGNMENT, text, windows, (m, base) => judgeAssignment(text, code, csv, m, base, out));
}

function judgeAssignment(text: string, code: boolean, csv: boolean, m: RegExpExecArray, base: number, out: ContextMatch[]): boolean {
  {
    const [, , keyQuote, , space, comma, dq, sq, ps, bq, eq, gq, written] = m;
    // A CSV row's value ends at the next column.
    const bare = written !== undefined && csv && comma !== undefined ? written.split(',')[0] : written;
    const raw = dq ?? sq ?? ps ?? bq ?? eq ?? gq ?? bare;
    if (raw === undefined) return false;
    const at = base + m.index;
    let keyStart = at;
    while (keyStart > 0 && at - keyStart < 80 && KEY_CHAR.test(text[keyStart - 1])) keyStart--;
    const key = text.slice(keyStart, base + m.indices![1][1]);
    if (!isSecretName(key)) return false;
    const valueOffset = base + m.indices![6 + [dq, sq, ps, bq, eq, gq, bare].indexOf(raw)][0];
    const [lineStart, lineEnd] = lineBounds(text, at);
    const prefix = text.slice(lineStart, keyStart);
    if (comma !== undefined) {
      // A name and a value as a call's arguments, a CSV row, or an Elixir `config` line.
      const call = prefix.replace(/["']$/, '');
      const argument = keyQuote !== undefined && (ENV_DEFAULT_CALL.test(call) || SETTER_CALL.test(call) || GRADLE_FIELD.test(call));
      const row = csv && /^(?:[^,\n]*,)*[ \t]*["']?$/.test(prefix);
      if (!argument && !row && !(keyQuote === undefined && ELIXIR_CONFIG.test(prefix))) return false;
    }
    // A command-line option: `--password=…`, `--api-token …`, `-storagekey …`.
    const option = /^--?[A-Za-z]/.test(key) && /(?:^|\s)$/.test(prefix) && (m[3] === '=' || space !== undefined);
    if (bare !== undefined && option) {
      if (!/^(?:[ \t]|\\?["']|$)/.test(text.slice(valueOffset + raw.length, lineEnd))) return false;
    } else if (bare !== undefined && comma !== undefined) {
      if (!csv) return false;
    } else if (bare !== undefined) {
      // Unquoted: only where a config syntax writes values so, and never as code in a source file.
      if (!UNQUOTED_PREFIX.test(prefix)) return false;
      if (space !== undefined && !/^[ \t]*(?:#[ \t]*)?(?:ENV|ARG)[ \t]+$/i.test(prefix)) return false;
      if (keyQuote !== undefined && !/["']$/.test(prefix)) return false;
      if (code && !COMMENT_PREFIX.test(prefix)) return false;
      if (!UNQUOTED_REST.test(text.slice(valueOffset + raw.length, lineEnd))) return false;
    } else if (space !== undefined && !SPACED_NAME.test(prefix) && !option) return false;
    const value = dq !== undefined || eq !== undefined || gq !== undefined ? unescapeJsonString(raw) : raw;
    if (!isCredentialValue(value, { key, quoted: bare === undefined })) return false;
    out.push({ rule: GENERIC_RULE, secret: raw, offset: valueOffset, key });
    return true;
  }
}

// ---------------------------------------------------------------------------------------------------------
// connection strings

const SCHEMES = String.raw`(?:jdbc:)?(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|ftps?|sftp|ldaps?|smtps?|imaps?|pop3s?|mssql|sqlserver|oracle|cockroachdb|clickhouse|neo4j(?:\+s)?|bolt|snowflake|couchdb|couchbase|db2|nats|kafka|memcached|influxdb|cassandra|mqtts?|ssh|svn|telnet|scp|rsync|smb|webdavs?|sftp)`;
const CONNECTION_URL = new RegExp(
  String.raw`(?<![\w+.-])${SCHEMES}(?:\+[a-z0-9_]+)?:\/\/(?<user>[^\s:/@"'\x60?#<>{}]{0,64}):(?<secret>[^\s@/"'\x60?#<>]{1,128})@(?<host>[^\s/"'\x60@:?#]*)`,
  'gid',
);
const QUERY_PASSWORD = /(?:\bjdbc:[a-z0-9]+:[^\s"'\x60]*?|:\/\/[^\s"'\x60]*?)[?&;](?:password|pwd|passwd)=(?<secret>[^&;\s"'\x60]{1,128})/gid;
const ADO_PASSWORD = /(?:^|[;"'\s])(?:password|pwd)[ \t]*=[ \t]*(?<secret>[^;"'\r\n]{1,128}?)[ \t]*(?=;|"|'|$)/gimd;
const ADO_CONTEXT = /(?:server|data source|host|database|initial catalog|user id|uid|address|addr)\s*=/i;

/** A password in a connection string or config file: short human ones pass, placeholders and the user's name do not. */
function isConnectionPassword(written: string, user = ''): boolean {
  const value = decodeUrlComponent(written);
  if (value.length < 4 || /^[*x.]+$/i.test(value)) return false;
  if (isPlaceholder(value) || WEAK.test(value) || REFERENCE.test(value) || /^[<{$%]|[<>{}]/.test(value)) return false;
  if (user && value.toLowerCase() === decodeUrlComponent(user).toLowerCase()) return false;
  if (NUMERIC.test(value) && value.length < 6) return false;
  return shannonEntropy(value) >= 1.5;
}

function connectionStrings(text: string, windowsFor: WindowsFor, out: ContextMatch[]): void {
  const urls = windowsFor(['://'], 0);
  execIn(CONNECTION_URL, text, urls, (m, base) => {
    const { user, secret, host } = m.groups!;
    if (!host || /example|\{|\$/i.test(host) || !isConnectionPassword(secret, user)) return;
    out.push({ rule: CONNECTION_STRING_RULE, secret, offset: base + m.indices!.groups!.secret[0] });
  });
  execIn(QUERY_PASSWORD, text, urls, (m, base) => {
    if (isConnectionPassword(m.groups!.secret)) out.push({ rule: CONNECTION_STRING_RULE, secret: m.groups!.secret, offset: base + m.indices!.groups!.secret[0] });
  });
  execIn(ADO_PASSWORD, text, windowsFor(['pass', 'pwd'], 0), (m, base) => {
    const at = base + m.indices!.groups!.secret[0];
    const [lineStart, lineEnd] = lineBounds(text, at);
    const line = text.slice(lineStart, lineEnd);
    if (!ADO_CONTEXT.test(line) || !line.includes(';')) return;
    const secret = m.groups!.secret;
    if (isConnectionPassword(secret) && !/\s/.test(secret)) out.push({ rule: CONNECTION_STRING_RULE, secret, offset: at });
  });
}

// ---------------------------------------------------------------------------------------------------------
// HTTP credentials

/**
 * An `Authorization` header with its scheme and credentials, as code, config, an HTTP file or a curl
 * command write it: `Authorization: Bearer …`, `"Authorization": "Basic …"`, `.header("Authorization", "Token …")`.
 * A credentials part that starts with `$`, `{`, `<` or a quote (a variable, a template, a concatenation) is not matched.
 */
const AUTH_HEADER = /\bAuthorization(?:\\?["'\x60])?[ \t]*[:=,][ \t]*(?:\\?["'\x60][ \t]*)?(?<scheme>Bearer|Basic|Token|Bot)[ \t]+(?<secret>[A-Za-z0-9._~+/-]{8,}=*)(?![^\s"'\x60\\,;)}\]])/gid;
/** curl's `-u user:password` / `--user user:password` (and `--proxy-user`), quoted or not. */
const CURL_USER = /(?:^|[\s"'])(?:-u|-U|--user|--proxy-user)(?:[ \t]+|=)(?:\\?["'])?(?<user>[^\s:"'$\\]{1,64}):(?<secret>[^\s"']{1,128})/gd;

function httpCredentials(text: string, windowsFor: WindowsFor, out: ContextMatch[]): void {
  execIn(AUTH_HEADER, text, windowsFor(['authorization'], 0), (m, base) => {
    const { scheme, secret } = m.groups!;
    const offset = base + m.indices!.groups!.secret[0];
    if (/^basic$/i.test(scheme)) {
      const plain = BASE64.test(secret) ? decodeBase64Text(secret) : undefined;
      const colon = plain?.indexOf(':') ?? -1;
      if (plain === undefined || colon < 1 || plain.includes('\n') || DOCUMENTED_EXAMPLES.has(secret)) return;
      if (isConnectionPassword(plain.slice(colon + 1), plain.slice(0, colon))) out.push({ rule: GENERIC_RULE, secret, offset });
      return;
    }
    if (isCredentialValue(secret, { key: 'token', quoted: true, minLength: 12 })) out.push({ rule: GENERIC_RULE, secret, offset });
  });
  execIn(CURL_USER, text, windowsFor(['curl'], LINE_REACH), (m, base) => {
    const { user, secret } = m.groups!;
    const offset = base + m.indices!.groups!.secret[0];
    // On a curl command: the same line, or lines joined by a trailing `\`, `^` or backtick.
    const before = text.slice(Math.max(0, offset - LINE_REACH), offset);
    const command = before.slice(before.toLowerCase().lastIndexOf('curl'));
    if (!/\bcurl(?:\.exe)?\b/i.test(command) || /[^\\^\x60\s][ \t]*\r?\n/.test(command)) return;
    if (isConnectionPassword(secret, user) && !/[$]/.test(secret)) out.push({ rule: GENERIC_RULE, secret, offset });
  });
}

// ---------------------------------------------------------------------------------------------------------
// config files

const NETRC = /\bmachine[ \t]+\S+(?:\s+(?:login|account|port)[ \t]+\S+)*\s+password[ \t]+(?<secret>\S+)/gmd;
const PGPASS_FILE = /(?:^|\/)(?:\.pgpass|pgpass\.conf)$/;
const PGPASS_LINE = /^[^#:\n][^:\n]*:[^:\n]*:[^:\n]*:(?<user>[^:\n]*):(?<secret>[^\n]+)$/gmd;
const XML_ELEMENT = new RegExp(
  String.raw`<(?<key>[\w.:-]*(?:password|passwd|passphrase|secret|token|(?:${KEY_WORDS.join('|')})[_-]?key|[_-]pat)[\w.:-]*)\s*>(?<secret>[^<\s]{1,200})<\/\k<key>\s*>`,
  'gid',
);
const XML_ATTRIBUTES = /\b(?:key|name)\s*=\s*"(?<key>[^"]{1,80})"\s+(?:value|content)\s*=\s*"(?<secret>[^"\s]{1,200})"/gid;
/** A Markdown table row of a name and its value: `| API_TOKEN | \`…\` |`. */
const TABLE_ROW = /^[ \t]*\|[ \t]*\x60?(?<key>[\w.-]{1,80})\x60?[ \t]*\|[ \t]*\x60?(?<secret>[^\s|\x60]{1,200})\x60?[ \t]*\|/gmd;
/** SQL `INSERT INTO t (col, …) VALUES (…)`: each value under its column's name. */
const SQL_INSERT = /\binsert\s+into\s+[\w."\x60[\]]+\s*\((?<columns>[^()]{1,400})\)\s*values\s*\((?<values>[^()]{1,2000})\)/gid;
const SQL_VALUE = /\s*(?:'((?:[^']|'')*)'|([^,]*?))\s*(?:,|$)/gy;
/** A property list's `<key>name</key>` and the `<string>` after it, on the same line or the next. */
const PLIST_ENTRY = /<key>(?<key>[^<]{1,80})<\/key>[ \t]*\r?\n?[ \t]*<string>(?<secret>[^<\s]{1,200})<\/string>/gd;
const TERRAFORM_VARIABLE = /\bvariable\s+"(?<key>[^"]{1,80})"\s*\{(?<body>[^{}]*?)\bdefault\s*=\s*"(?<secret>[^"\n]{1,200})"(?<after>[^{}]*)\}/gd;

function configFiles(text: string, filePath: string | undefined, windowsFor: WindowsFor, out: ContextMatch[]): void {
  const push = (m: RegExpExecArray, base: number, accept: (secret: string) => boolean) => {
    const { secret, key } = m.groups!;
    if (accept(secret)) out.push({ rule: GENERIC_RULE, secret, offset: base + m.indices!.groups!.secret[0], ...(key && { key: key.replace(/^.*:/, '') }) });
  };
  execIn(NETRC, text, windowsFor(['machine'], 512), (m, base) => push(m, base, (s) => isConnectionPassword(s)));
  if (filePath && PGPASS_FILE.test(filePath)) {
    execIn(PGPASS_LINE, text, undefined, (m, base) => push(m, base, (s) => isConnectionPassword(s, m.groups!.user)));
  }
  /** A value under the name written beside it (`key` group), taken when the name is a secret's and the value passes. */
  const underItsName = (minLength: number | undefined, keyOf = (m: RegExpExecArray) => m.groups!.key) => (m: RegExpExecArray, base: number) => {
    const key = keyOf(m);
    push(m, base, (s) => isSecretName(key) && isCredentialValue(s, { key, quoted: true, minLength }));
  };
  const named = windowsFor(ASSIGNMENT_KEYWORDS, 0);
  execIn(XML_ELEMENT, text, named, underItsName(6, (m) => m.groups!.key.replace(/^.*:/, '')));
  execIn(XML_ATTRIBUTES, text, named, underItsName(6));
  execIn(TABLE_ROW, text, named, underItsName(undefined));
  execIn(SQL_INSERT, text, named, (m, base) => {
    const columns = m.groups!.columns.split(',').map((c) => c.trim().replace(/^["\x60[]|["\x60\]]$/g, ''));
    const valuesAt = base + m.indices!.groups!.values[0];
    const values = m.groups!.values;
    SQL_VALUE.lastIndex = 0;
    for (let i = 0; i < columns.length && SQL_VALUE.lastIndex < values.length; i++) {
      const v = SQL_VALUE.exec(values);
      if (!v) break;
      const key = columns[i];
      const written = v[1];
      if (written === undefined || !isSecretName(key) || !isCredentialValue(written.replace(/''/g, "'"), { key, quoted: true })) continue;
      out.push({ rule: GENERIC_RULE, secret: written, offset: valuesAt + v.index + v[0].indexOf("'") + 1, key });
    }
  });
  execIn(PLIST_ENTRY, text, windowsFor(ASSIGNMENT_KEYWORDS, 256), underItsName(6));
  execIn(TERRAFORM_VARIABLE, text, windowsFor(['variable'], 2048), (m, base) => {
    const { key, body, after } = m.groups!;
    const sensitive = isSecretName(key) || /\bsensitive\s*=\s*true\b/.test(body + after);
    push(m, base, (s) => sensitive && isCredentialValue(s, { key: isSecretName(key) ? key : 'password', quoted: true, minLength: 6 }));
  });
}

/**
 * Credentials found by their context, in text order. `present` says whether a keyword (lowercase) occurs in
 * the text and `windowsFor` where, so each detector reads only the lines around its words.
 */
export function detectInContext(text: string, filePath: string | undefined, present: (keyword: string) => boolean, windowsFor: WindowsFor): ContextMatch[] {
  const out: ContextMatch[] = [];
  const named = ASSIGNMENT_KEYWORDS.some(present);
  if (named) assignments(text, filePath, windowsFor(ASSIGNMENT_KEYWORDS, 0), out);
  if (present('://') || present('pass') || present('pwd')) connectionStrings(text, windowsFor, out);
  if (named || present('machine') || present('variable')) configFiles(text, filePath, windowsFor, out);
  if (present('authorization') || present('curl')) httpCredentials(text, windowsFor, out);
  return out.sort((a, b) => a.offset - b.offset);
}

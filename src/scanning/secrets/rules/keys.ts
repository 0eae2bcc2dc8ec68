// Key material, signed tokens and the credentials of web frameworks.
import { E, hasBech32Checksum, hasJwtHeader, keyed, re, rule, token, type SecretRule } from './helpers.ts';

// A PEM body is base64 lines split by line breaks: written in a file, escaped in a JSON or code string
// (`\n`), or behind a line comment on every line when the key sits in a comment (`#`, `;`, or `//` where a
// line starts). Base64 and the breaks share no character but `/`, and `//` is a comment mark only where a
// line starts (after a line break, spaces, other marks and at most one `//` before it: a base64 line that
// itself starts with `//`) while no base64 run may start with it, so a body
// is read in one pass: no stretch of it can be split two ways, and a block with no end costs its own
// length, not its length squared. It holds at least 64 characters, counted from its first (so a long gap
// before it is not counted again from every place in the gap).
const B64 = '[A-Za-z0-9+/=]';
const BREAK = String.raw`(?:\s|\\[nr]|[#;]|(?<=(?:^|[\r\n]|\\[nr])[ \t#;]*(?://[ \t]*)?)//)`;
const RUN = String.raw`(?!//)${B64}`;
const PEM_SECRET = String.raw`${RUN}(?=(?:${B64}|${BREAK}){63})${B64}*(?:${BREAK}+${RUN}${B64}*)*`;
/** `-----BEGIN … -----`, the key and `-----END`. */
const pem = (begin: string) => re(String.raw`${begin}${BREAK}*(?<secret>${PEM_SECRET})${BREAK}*-----END`);
/**
 * As `pem`, with armor headers before the key (`Version: …`, `Comment: "…"`): at most 16 of a name, `: ` and
 * a value that runs to the end of its line, or on over a line that ends in `\` (so it cannot end early and
 * leave the rest of the line to the key), may hold escapes other than a line break's (`\"` in a JSON string)
 * and holds no `----` (so a header cannot run on into the next block). `end` is the footer's opening.
 */
const armored = (begin: string, end = '-----END') =>
  re(
    String.raw`${begin}(?:${BREAK}*[\w-]{1,64}: (?:(?!----)[^\\\r\n]|\\(?:\r?\n|[^nr\r\n])){0,256}(?:[\r\n]|\\[nr])){0,16}${BREAK}*(?<secret>${PEM_SECRET})${BREAK}*${end}`,
  );
/** SSH2 (SECSH, RFC 4716) armor is written `---- BEGIN … ----`, four dashes and a space; five dashes are read too. */
const secsh = (words: string) => String.raw`(?:---- |-----)${words}(?: ----|-----)`;

export const KEY_RULES: SecretRule[] = [
  token('bulwark-api-key', 'Bulwark API key', 'critical', ['bwk_'], String.raw`bwk_[A-Za-z0-9_-]{40}`, 'bwk_{u:40}'),
  rule('private-key', 'Private key (PEM)', 'critical', ['private key-----'],
    pem('-----BEGIN (?:RSA |EC |DSA |ENCRYPTED )?PRIVATE KEY-----'),
    '-----BEGIN RSA PRIVATE KEY-----\n{b:64}\n{b:64}\n-----END RSA PRIVATE KEY-----'),
  rule('openssh-private-key', 'OpenSSH private key', 'critical', ['begin openssh private key'],
    pem('-----BEGIN OPENSSH PRIVATE KEY-----'),
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{b:40}\n{b:64}\n-----END OPENSSH PRIVATE KEY-----'),
  rule('secsh-encrypted-private-key', 'SSH2 (SECSH) encrypted private key', 'critical', ['begin ssh2 encrypted private key'],
    armored(secsh('BEGIN SSH2 ENCRYPTED PRIVATE KEY'), '(?:---- |-----)END'),
    '---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "rsa-key-20240101"\nP2/56w{b:58}\n{b:64}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----'),
  rule('pgp-private-key', 'PGP private key block', 'critical', ['begin pgp private key block'],
    armored('-----BEGIN PGP PRIVATE KEY BLOCK-----'),
    '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF{b:58}\n{b:64}\n-----END PGP PRIVATE KEY BLOCK-----'),
  token('age-secret-key', 'age encryption secret key', 'critical', ['age-secret-key-1'],
    String.raw`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`, 'AGE-SECRET-KEY-1{Z:52}{K:6}',
    { validate: hasBech32Checksum, negatives: ['AGE-SECRET-KEY-1{Z:40}'] }),
  token('jwt', 'JSON Web Token', 'medium', ['eyj'],
    String.raw`eyJ[A-Za-z0-9_-]{15,}\.eyJ[A-Za-z0-9_-]{15,}\.[A-Za-z0-9_-]{20,}`, 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{u:40}.{u:43}',
    { validate: hasJwtHeader, negatives: ['eyJ{u:40}.eyJ{u:40}.{u:12}'] }),
  keyed('jwt-under-secret-name', 'JSON Web Token under a secret or key name', 'high',
    ['secret', 'service_role', 'api_key', 'apikey', 'private_key', 'access_key', 'anon_key', 'auth_token'],
    'secret|service_?role(?:_?key)?|api_?key|private_?key|access_?key|auth_?token',
    String.raw`eyJ[A-Za-z0-9_-]{15,}\.eyJ[A-Za-z0-9_-]{15,}\.[A-Za-z0-9_-]{20,}`,
    'CLIENT_SECRET=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{u:50}.{u:43}', { validate: hasJwtHeader }),
  keyed('jwt-signing-secret', 'JWT signing secret', 'high', ['jwt'], 'jwt_?(?:secret|signing_?key|sign_?key|private_?key)(?:_?key)?', String.raw`[A-Za-z0-9+/=_.!@#%^&*~-]{16,128}`, 'JWT_SECRET={b:48}', 3.5),
  rule('app-secret-key', 'Web framework SECRET_KEY (Django, Flask)', 'high', ['secret_key', 'secretkey'],
    re(String.raw`\bsecret_?key["']?\s*[=:]\s*(?:os\.environ\.get\(\s*["'][A-Z_]+["']\s*,\s*)?["']?(?<secret>(?:django-insecure-)?[^"'\s]{40,100})(?=["'\s]|$)`, 'i'),
    "SECRET_KEY = 'django-insecure-{b:50}'", 4),
  rule('rails-secret-key-base', 'Rails secret_key_base', 'high', ['secret_key_base', 'secretkeybase'],
    re(String.raw`secret_?key_?base["']?\s*[:=]\s*["']?(?<secret>[a-f0-9]{64,128})${E}`, 'i'), 'secret_key_base: {h:128}'),
  rule('spring-datasource-password', 'Spring datasource password', 'high', ['datasource.password', 'datasource_password'],
    re(String.raw`datasource[._]password\s*[=:]\s*["']?(?<secret>[^\s"'$<]{6,128})`, 'i'), 'spring.datasource.password={a:20}', 2.5),
  keyed('encryption-key-assignment', 'Hard-coded encryption key', 'high', ['encryption_key', 'encryptionkey', 'aes_key', 'aeskey', 'master_key', 'masterkey'],
    'encryption_?key|aes_?key|master_?key', '[A-Za-z0-9+/=]{32,88}', 'ENCRYPTION_KEY={b:44}', 4.2),
  rule('url-basic-credentials', 'Credentials embedded in a URL', 'high', ['://'],
    re(String.raw`\bhttps?://[A-Za-z0-9._~-]{1,64}:(?<secret>[A-Za-z0-9._~%!$&'()*+,;=-]{8,128})@[A-Za-z0-9.-]+\.[a-z]{2,}`),
    'https://deploy:{a:24}@git.example-corp.io/repo.git', 3),
];

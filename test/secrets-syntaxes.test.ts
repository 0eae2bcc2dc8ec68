// Credentials in the syntaxes of many kinds of files: declarations with types, `#define`, env lookups with
// defaults in C#, Kotlin and Rust, XML and plist pairs, HTML meta tags, Markdown tables, SQL inserts,
// command-line options; a provider's name however the syntax writes it (an XML element, a kebab-case key,
// a dotted property) names the credential's type; a token with its own shape keeps its type inside a
// `.netrc` or `.npmrc`. Each shape has true and false examples; credentials are built at run time.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, test } from 'node:test';
import { detectSecrets } from '../src/engines/secrets/detector.ts';
import { SECRET_RULES } from '../src/engines/secrets/rules.ts';
import { positiveSample } from './support/secret-samples.ts';

const random = (seed: string, length = 24) => crypto.createHash('sha256').update(seed).digest('base64').replace(/[+/=]/g, '').slice(0, length);
const hex32 = (seed: string) => crypto.createHash('sha256').update(seed).digest('hex').slice(0, 32);
const TOKEN = random('syntax-token', 28);

/** `rule@line` for each finding whose secret is `secret`. */
function foundAs(text: string, secret: string, file?: string): string[] {
  return detectSecrets(text, file).filter((m) => m.secret === secret).map((m) => `${m.rule.id}@${m.startLine}`);
}

function assertFinds(text: string, secret: string, line: number, file?: string, rule = 'generic-secret-assignment'): void {
  const got = foundAs(text, secret, file);
  assert.ok(got.includes(`${rule}@${line}`), `expected ${rule}@${line} in ${file ?? 'text'}:\n${text}\nfound ${JSON.stringify(detectSecrets(text, file).map((m) => `${m.rule.id}:${m.secret}`))}`);
}

function assertNone(text: string, file?: string): void {
  assert.deepEqual(detectSecrets(text, file).map((m) => m.secret), [], `${file ?? 'text'}:\n${text}`);
}

function sampleOf(id: string): string {
  const rule = SECRET_RULES.find((r) => r.id === id);
  assert.ok(rule, id);
  return positiveSample(rule, 7);
}

describe('declarations in code', () => {
  test('type annotations, string prefixes, #define, fixed-size arrays and EDN keywords', () => {
    assertFinds(`pub const API_TOKEN: &str = "${TOKEN}";\n`, TOKEN, 1, 'src/config.rs');
    assertFinds(`let apiToken: String = "${TOKEN}"\n`, TOKEN, 1, 'Secrets.swift');
    assertFinds(`  final val ApiSecret: String = "${TOKEN}"\n`, TOKEN, 1, 'Config.scala');
    assertFinds(`const apiToken: string = '${TOKEN}';\n`, TOKEN, 1, 'config.ts');
    assertFinds(`NSString *const kApiToken = @"${TOKEN}";\n`, TOKEN, 1, 'AppKeys.m');
    assertFinds(`API_SECRET = r"${TOKEN}"\n`, TOKEN, 1, 'settings.py');
    assertFinds(`#define API_TOKEN "${TOKEN}"\n`, TOKEN, 1, 'config.h');
    assertFinds(`const char api_token[] = "${TOKEN}";\n`, TOKEN, 1, 'config.c');
    assertFinds(`{:port 8080\n :api-token "${TOKEN}"}\n`, TOKEN, 2, 'config.edn');
    assertFinds(`./bin/tool --api-token '${TOKEN}' sync\n`, TOKEN, 1, 'release.sh');
  });

  test('defaults of environment lookups in C#, Kotlin, Rust, Ruby, Perl and Make', () => {
    assertFinds(`var t = Environment.GetEnvironmentVariable("API_TOKEN") ?? "${TOKEN}";\n`, TOKEN, 1, 'Settings.cs');
    assertFinds(`val t = System.getenv("API_TOKEN") ?: "${TOKEN}"\n`, TOKEN, 1, 'Config.kt');
    assertFinds(`let t = env::var("API_TOKEN").unwrap_or_else(|_| "${TOKEN}".to_string());\n`, TOKEN, 1, 'main.rs');
    assertFinds(`let t = env::var("API_TOKEN").unwrap_or("${TOKEN}");\n`, TOKEN, 1, 'main.rs');
    assertFinds(`ENV['API_TOKEN'] ||= '${TOKEN}'\n`, TOKEN, 1, 'boot.rb');
    assertFinds(`$ENV{API_TOKEN} = '${TOKEN}';\n`, TOKEN, 1, 'Config.pm');
    assertFinds(`API_TOKEN ?= ${TOKEN}\n`, TOKEN, 1, 'Makefile');
    assertFinds(`api_token <- "${TOKEN}"\n`, TOKEN, 1, 'setup.R');
  });

  test('names that end in a qualified key: private, access, admin, service-role keys', () => {
    assertFinds(`  <braintreePrivateKey>${TOKEN}</braintreePrivateKey>\n`, TOKEN, 1, 'config.xml');
    assertFinds(`storage.access-key=${TOKEN}\n`, TOKEN, 1, 'application.properties');
    assertFinds(`payments.private.key=${TOKEN}\n`, TOKEN, 1, 'application.properties');
    assertFinds(`dd.api.key=${TOKEN}\n`, TOKEN, 1, 'application.properties');
    assertFinds(`const searchAdminKey = "${TOKEN}";\n`, TOKEN, 1, 'search.js');
  });

  test('placeholders, references and lookups without a default are not reported', () => {
    assertNone('pub const API_TOKEN: &str = "changeme";\n', 'src/config.rs');
    assertNone('let apiToken: String = "<your-api-token>"\n', 'Secrets.swift');
    assertNone('#define API_TOKEN "xxxxxxxxxxxxxxxx"\n', 'config.h');
    assertNone('#define API_TOKEN_LENGTH 40\n', 'config.h');
    assertNone('var t = Environment.GetEnvironmentVariable("API_TOKEN") ?? "${API_TOKEN}";\n', 'Settings.cs');
    assertNone('val t = System.getenv("API_TOKEN") ?: error("API_TOKEN is not set")\n', 'Config.kt');
    assertNone('let t = env::var("API_TOKEN").unwrap_or_default();\n', 'main.rs');
    assertNone('let t = env::var("API_TOKEN").unwrap_or(String::new());\n', 'main.rs');
    assertNone("ENV['API_TOKEN'] ||= ENV['LEGACY_TOKEN']\n", 'boot.rb');
    assertNone('API_TOKEN ?= $(shell cat token.txt)\n', 'Makefile');
    assertNone('./bin/tool --api-token "$API_TOKEN" sync\n', 'release.sh');
    assertNone('const accessKey: string = process.env.ACCESS_KEY!;\n', 'config.ts');
    assertNone('private key: string = "primary";\n', 'store.ts');
    assertNone('signing.key=${SIGNING_KEY}\n', 'application.properties');
    // A raw string that is a regular expression or a printf template.
    assertNone("    _token_terminator = r'(?=\\^?[%s]|[%s%s])' % (_ws, _punct, _nl)\n", 'lexers/shell.py');
    assertNone("API_TOKEN = r'(?:[A-Za-z0-9]{40})'\n", 'patterns.py');
  });
});

describe('config and data syntaxes', () => {
  test('property lists, HTML meta tags, Markdown tables and SQL inserts', () => {
    assertFinds(`<dict>\n\t<key>ApiToken</key>\n\t<string>${TOKEN}</string>\n</dict>\n`, TOKEN, 3, 'Info.plist');
    assertFinds(`<meta name="api-token" content="${TOKEN}">\n`, TOKEN, 1, 'index.html');
    assertFinds(`| name | value |\n|---|---|\n| API_TOKEN | \`${TOKEN}\` |\n`, TOKEN, 3, 'SETUP.md');
    assertFinds(`INSERT INTO integrations (name, api_token) VALUES ('ci', '${TOKEN}');\n`, TOKEN, 1, 'seed.sql');
    assertFinds(`INSERT INTO "users" ("email", "password") VALUES ('a@b.io', '${TOKEN}'), ('c@d.io', 'x');\n`, TOKEN, 1, 'seed.sql');
  });

  test('their placeholders are not reported', () => {
    assertNone('<dict>\n\t<key>ApiToken</key>\n\t<string>$(API_TOKEN)</string>\n</dict>\n', 'Info.plist');
    assertNone('<meta name="csrf-token" content="a8Fh2kLq9ZxWv3Rt7YbN1cPd">\n', 'index.html');
    assertNone('| API_TOKEN | `<your-token>` |\n| DB_PASSWORD | changeme |\n', 'SETUP.md');
    assertNone("INSERT INTO users (email, password) VALUES ('a@b.io', 'changeme');\n", 'seed.sql');
    assertNone("INSERT INTO users (email, password_hash) VALUES ('a@b.io', '$2b$12$abcdefghijklmnopqrstuv');\n", 'seed.sql');
  });
});

describe('the type of a credential written under its provider name', () => {
  const twilio = sampleOf('twilio-auth-token').split('=')[1];

  test('an XML element, a web.config key, a Terraform variable, a dotted or kebab-case key name the provider', () => {
    assertFinds(`<twilioAuthToken>${twilio}</twilioAuthToken>\n`, twilio, 1, 'config.xml', 'twilio-auth-token');
    assertFinds(`<add key="TwilioAuthToken" value="${twilio}" />\n`, twilio, 1, 'Web.config', 'twilio-auth-token');
    assertFinds(`variable "twilio_auth_token" {\n  default = "${twilio}"\n}\n`, twilio, 2, 'variables.tf', 'twilio-auth-token');
    assertFinds(`twilio.auth.token=${twilio}\n`, twilio, 1, 'application.properties', 'twilio-auth-token');
    assertFinds(`app:\n  twilio-auth-token: ${twilio}\n`, twilio, 2, 'application.yml', 'twilio-auth-token');
    assertFinds(`settings["twilio_auth_token"] = '${twilio}'\n`, twilio, 1, 'client.py', 'twilio-auth-token');
  });

  test('a Kubernetes Secret key in kebab case', () => {
    const encoded = Buffer.from(twilio).toString('base64');
    const manifest = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ndata:\n  twilio-auth-token: ${encoded}\n`;
    assertFinds(manifest, encoded, 6, 'secret.yaml', 'twilio-auth-token');
  });

  test('a token with its own shape keeps its type in a .netrc, .npmrc or Maven password', () => {
    const pat = sampleOf('github-pat');
    assertFinds(`machine api.github.com login me password ${pat}\n`, pat, 1, '.netrc', 'github-pat');
    assertFinds(`//npm.pkg.github.com/:_authToken=${pat}\n`, pat, 1, '.npmrc', 'github-pat');
    assertFinds(`<server><id>gh</id><username>me</username><password>${pat}</password></server>\n`, pat, 1, 'settings.xml', 'github-pat');
    // A plain password stays what the file's syntax says it is.
    const plain = random('netrc-password', 20);
    assertFinds(`machine git.internal login deploy password ${plain}\n`, plain, 1, '.netrc', 'netrc-password');
  });

  test('a value under a name no rule knows stays a generic finding', () => {
    assertFinds(`<acmeApiToken>${hex32('acme')}</acmeApiToken>\n`, hex32('acme'), 1, 'config.xml');
  });
});

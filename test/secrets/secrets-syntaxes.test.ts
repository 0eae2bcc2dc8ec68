// Credentials in the syntaxes of many kinds of files: declarations with types, `#define`, env lookups with
// defaults in C#, Kotlin and Rust, XML and plist pairs, HTML meta tags, Markdown tables, SQL inserts,
// command-line options; a provider's name however the syntax writes it (an XML element, a kebab-case key,
// a dotted property) names the credential's type; a token with its own shape keeps its type inside a
// `.netrc` or `.npmrc`. Each shape has true and false examples; credentials are built at run time.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, test } from 'node:test';
import { detectSecrets } from '../../src/scanning/secrets/detector.ts';
import { isSecretName } from '../../src/scanning/secrets/generic.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { positiveSample } from '../support/secret-samples.ts';

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
    assertNone('TOKEN_PAT = "[0-9A-Za-z_-]{32,64}"\nSECRET_RE = "[a-f0-9]+x"\n', 'patterns.py');
    // A URN names something (a WebDAV lock token): not a credential.
    assertNone("headers: { 'Lock-Token': 'urn:uuid:a515cfa4-5da4-22e1-f5b5-00a0451e6bf7' }\n", 'unlock.test.js');
    // A password that merely holds brackets is still one.
    assertFinds('DB_PASSWORD="Tr[0ub]4dor&3x"\n', 'Tr[0ub]4dor&3x', 1, '.env');
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

describe('HTTP credentials', () => {
  const token = random('http-bearer', 32);
  const password = random('http-password', 16);
  const basic = Buffer.from(`deploy:${password}`).toString('base64');

  test('curl -u / --user, and Authorization headers in curl, code, config and HTTP files', () => {
    assertFinds(`curl -u deploy:${password} https://api.acme.io/v1/items\n`, password, 1, 'sync.sh');
    assertFinds(`curl -sS \\\n  --user "deploy:${password}" \\\n  https://api.acme.io/v1/items\n`, password, 2, 'sync.sh');
    assertFinds(`curl -H "Authorization: Bearer ${token}" https://api.acme.io\n`, token, 1, 'README.md');
    assertFinds(`curl -H 'Authorization: Basic ${basic}' https://api.acme.io\n`, basic, 1, 'sync.sh');
    assertFinds(`GET https://api.acme.io/items\nAuthorization: Bearer ${token}\n`, token, 2, 'items.http');
    assertFinds(`headers = {"Authorization": "Bearer ${token}"}\n`, token, 1, 'client.py');
    assertFinds(`fetch(url, { headers: { Authorization: 'Token ${token}' } });\n`, token, 1, 'client.js');
    assertFinds(`request.header("Authorization", "Bearer ${token}");\n`, token, 1, 'Client.java');
  });

  test('variables, commands, templates and placeholders are not credentials', () => {
    for (const value of ['$TOKEN', '${TOKEN}', '$(cat token.txt)', '<token>', 'YOUR_TOKEN', 'xxxxxxxxxxxxxxxx', 'changeme', '{{ token }}']) {
      assertNone(`curl -H "Authorization: Bearer ${value}" https://api.acme.io\n`, 'sync.sh');
      assertNone(`curl -u deploy:${value} https://api.acme.io\n`, 'sync.sh');
    }
    assertNone('headers = {"Authorization": "Bearer " + token}\n', 'client.py');
    assertNone('const h = { Authorization: `Bearer ${token}` };\n', 'client.js');
    assertNone(`curl -H 'Authorization: Basic ${Buffer.from('user:changeme').toString('base64')}' https://api.acme.io\n`, 'sync.sh');
    assertNone('curl -u admin:admin http://localhost:9200\n', 'sync.sh');
    assertNone(`mysql -u root -p${password} shop\n`, 'load.sh');
  });
});

describe('values passed as call arguments, initialisers and strings in strings', () => {
  test('setter calls, brace initialisers, Gradle fields, Elixir config, PowerShell escaped JSON', () => {
    assertFinds(`builder.Add("AccountKey", "${TOKEN}");\n`, TOKEN, 1, 'Storage.cs');
    assertFinds(`params.put("api_key", "${TOKEN}");\n`, TOKEN, 1, 'Client.java');
    assertFinds(`props.setProperty("password", "${TOKEN}");\n`, TOKEN, 1, 'Db.java');
    assertFinds(`os.Setenv("API_TOKEN", "${TOKEN}")\n`, TOKEN, 1, 'main.go');
    assertFinds(`const std::string AccountKey{"${TOKEN}"};\n`, TOKEN, 1, 'storage.cpp');
    assertFinds(`        buildConfigField("String", "API_KEY", "\\"${TOKEN}\\"")\n`, TOKEN, 1, 'app/build.gradle.kts');
    assertFinds(`config :my_app, :secret_key_base, "${TOKEN}"\n`, TOKEN, 1, 'config/prod.exs');
    assertFinds(`$body = "{\`"password\`":\`"${TOKEN}\`"}"\n`, TOKEN, 1, 'deploy.ps1');
  });

  test('placeholders, variables and other calls are not credentials', () => {
    for (const value of ['changeme', '${API_KEY}', '$API_KEY', '<your-key>', 'xxxxxxxxxxxx']) {
      assertNone(`params.put("api_key", "${value}");\n`, 'Client.java');
      assertNone(`        buildConfigField("String", "API_KEY", "\\"${value}\\"")\n`, 'app/build.gradle.kts');
      assertNone(`config :my_app, :secret_key_base, "${value}"\n`, 'config/prod.exs');
    }
    assertNone(`log.info("password", "${TOKEN}");\n`, 'Client.java');
    assertNone('translate("password", "Passwort");\n', 'i18n.js');
    assertNone(`params.put("api_key", apiKey);\n`, 'Client.java');
  });
});

describe('XML elements, command-line options, CSV rows and more secret names', () => {
  test('provider and key names in XML, options, CSV', () => {
    assertFinds(`<config>\n  <account_key>${TOKEN}</account_key>\n</config>\n`, TOKEN, 2, 'config.xml');
    assertFinds(`<config>\n  <storageKey>${TOKEN}</storageKey>\n</config>\n`, TOKEN, 2, 'config.xml');
    assertFinds(`AzCopy /Source:https://acct.blob.core.windows.net/c /Dest:C:\\data -storagekey ${TOKEN}\n`, TOKEN, 1, 'copy.cmd');
    assertFinds(`mysql --user=root --password=${TOKEN} shop\n`, TOKEN, 1, 'load.sh');
    assertFinds(`service,key,value\nci,api_key,${TOKEN}\n`, TOKEN, 2, 'credentials.csv');
    assertFinds(`name,value\n"db_password","${TOKEN}"\n`, TOKEN, 2, 'credentials.csv');
  });

  test('write-key, record-key and _pat names', () => {
    assertFinds(`analytics:\n  segment-write-key: ${TOKEN}\n`, TOKEN, 2, 'values.yaml');
    assertFinds(`RECORD_KEY=${TOKEN}\n`, TOKEN, 1, '.env');
    assertFinds(`GITLAB_PAT=${TOKEN}\n`, TOKEN, 1, '.env');
    assertFinds(`{:clarifai-pat "${TOKEN}"}\n`, TOKEN, 1, 'config.edn');
    assert.equal(isSecretName('cypress-record-key'), true);
    assert.equal(isSecretName('GITLAB_PAT'), true);
    assert.equal(isSecretName('pat'), false);
    assert.equal(isSecretName('storage_key_prefix'), false);
  });

  test('their placeholders, paths and option names are not credentials', () => {
    for (const value of ['changeme', '${STORAGE_KEY}', '$STORAGE_KEY', '<your-key>', 'xxxxxxxxxxxx']) {
      assertNone(`<config>\n  <storageKey>${value}</storageKey>\n</config>\n`, 'config.xml');
      assertNone(`mysql --user=root --password=${value} shop\n`, 'load.sh');
      assertNone(`ci,api_key,${value}\n`, 'credentials.csv');
      assertNone(`GITLAB_PAT=${value}\n`, '.env');
    }
    assertNone('  --password=PASSWORD   the password to use\n', 'README.md');
    assertNone("const STORAGE_KEY = 'todo-items';\n", 'store.js');
    assertNone('id,api_key,secret\n', 'columns.csv');
  });
});

describe('rules in more contexts', () => {
  test('a Facebook token, but not a run of the same characters inside base64', () => {
    const fb = `EAAG${random('fb-1', 40)}${random('fb-2', 40)}${random('fb-3', 40)}`;
    assertFinds(`FB_TOKEN=${fb}\n`, fb, 1, '.env', 'facebook-access-token');
    assertNone(`const wasm = "AGFzbQEAAAAB/${fb}+AAAA";\n`, 'module.js');
    assertNone(`const wasm = "AGFzbQEAAAAB+${fb}/AAAA";\n`, 'module.js');
    assertNone(`const blob = "${fb.slice(0, 4)}${'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.repeat(4)}";\n`, 'blob.js');
  });

  test('a NuGet ClearTextPassword in YAML double-quoted and JSON strings', () => {
    const pw = random('nuget', 16);
    assertFinds(`nuget_config: "<add key=\\"ClearTextPassword\\" value=\\"${pw}\\" />"\n`, pw, 1, 'ci.yml', 'nuget-config-password');
    assertFinds(`{"config": "<add key=\\"ClearTextPassword\\" value=\\"${pw}\\" />"}\n`, pw, 1, 'settings.json', 'nuget-config-password');
    assertNone('nuget_config: "<add key=\\"ClearTextPassword\\" value=\\"%NUGET_PASSWORD%\\" />"\n', 'ci.yml');
  });

  test('a JWT under a secret name is reported as such in HTML, Markdown and notebooks', () => {
    const jwt = sampleOf('jwt-under-secret-name').split('=')[1];
    assertFinds(`<meta name="client-secret" content="${jwt}">\n`, jwt, 1, 'index.html', 'jwt-under-secret-name');
    assertFinds(`| CLIENT_SECRET | \`${jwt}\` |\n`, jwt, 1, 'SETUP.md', 'jwt-under-secret-name');
    assertFinds(`{"source": ["os.environ[\\"CLIENT_SECRET\\"] = \\"${jwt}\\"\\n"]}\n`, jwt, 1, 'a.ipynb', 'jwt-under-secret-name');
    // A bare JWT in prose stays a JWT.
    assertFinds(`The session is ${jwt} for now.\n`, jwt, 1, 'notes.md', 'jwt');
  });

  test('provider-named values in brackets, braces and escaped quotes', () => {
    const segment = sampleOf('segment-write-key').split('=')[1];
    assertFinds(`config["segment_write_key"] = "${segment}"\n`, segment, 1, 'settings.py', 'segment-write-key');
    assertFinds(`{"segment_write_key"}: "${segment}"\n`, segment, 1, 'conf.txt', 'segment-write-key');
    assertFinds(`x = "{\\"segment_write_key\\": \\"${segment}\\"}"\n`, segment, 1, 'conf.py', 'segment-write-key');
    assertFinds(`buildConfigField("String", "SEGMENT_WRITE_KEY", "\\"${segment}\\"")\n`, segment, 1, 'build.gradle', 'segment-write-key');
    assertNone('config["segment_write_key"] = "${SEGMENT_WRITE_KEY}"\n', 'settings.py');
  });

  test('provider-named values in XML elements and as environment lookups\' defaults', () => {
    const clarifai = hex32('clarifai');
    assertFinds(`<settings>\n  <clarifai_pat>${clarifai}</clarifai_pat>\n</settings>\n`, clarifai, 2, 'config.xml', 'clarifai-api-key');
    assertFinds(`<settings>\n  <clarifaiPat>${clarifai}</clarifaiPat>\n</settings>\n`, clarifai, 2, 'config.xml', 'clarifai-api-key');
    const transaction = random('authorize-net', 16);
    assertFinds(`ENV['AUTHORIZE_NET_TRANSACTION_KEY'] ||= '${transaction}'\n`, transaction, 1, 'config/initializers/payments.rb', 'authorize-net-transaction-key');
    assertFinds(`val key = System.getenv("AUTHORIZE_NET_TRANSACTION_KEY") ?: "${transaction}"\n`, transaction, 1, 'Config.kt', 'authorize-net-transaction-key');
    const password = random('datasource', 20);
    assertFinds(`<value>spring.datasource.password=${password}</value>\n`, password, 1, 'beans.xml', 'spring-datasource-password');
    assertNone(`<settings>\n  <clarifai_pat>\${CLARIFAI_PAT}</clarifai_pat>\n</settings>\n`, 'config.xml');
    assertNone(`ENV['AUTHORIZE_NET_TRANSACTION_KEY'] ||= ENV.fetch('AUTHNET_KEY')\n`, 'config/initializers/payments.rb');
    assertNone('val key = System.getenv("AUTHORIZE_NET_TRANSACTION_KEY") ?: error("missing")\n', 'Config.kt');
  });

  test('provider-named values under kebab-case names: YAML keys and command-line options', () => {
    const transaction = random('authorize-net-kebab', 16);
    assertFinds(`payments:\n  authorize-net-transaction-key: ${transaction}\n`, transaction, 2, 'application.yml', 'authorize-net-transaction-key');
    assertFinds(`./bin/charge --authorize-net-transaction-key=${transaction} --dry-run\n`, transaction, 1, 'release.sh', 'authorize-net-transaction-key');
    assertNone('payments:\n  authorize-net-transaction-key: ${AUTHNET_KEY}\n', 'application.yml');
  });
});

test('the OAuth RFCs\' example Authorization headers are documentation', () => {
  assertNone('    Authorization: Bearer mF_9.B5f-4.1JqM\n    Authorization: Basic czZCaGRSa3F0MzpnWDFmQmF0M2JW\n', 'oauth2/clients/base.py');
});

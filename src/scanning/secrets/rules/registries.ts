// Package registries and their client configuration files.
import { hasBase62Checksum, keyed, re, rule, token, type SecretRule } from './helpers.ts';
import { decodeBase64Text } from '../decoders.ts';
import { isPlaceholder } from '../text-checks.ts';

export const REGISTRY_RULES: SecretRule[] = [
  token('npm-token', 'npm access token', 'critical', ['npm_'], String.raw`npm_[A-Za-z0-9]{36}`, 'npm_{a:30}{C:6}',
    { validate: hasBase62Checksum, negatives: ['npm_{a:36}', 'npm_{a:30}'] }),
  rule('npmrc-auth-token', 'npm registry auth token in .npmrc', 'high', ['_authtoken'],
    re(String.raw`_authToken\s*=\s*(?<secret>[A-Za-z0-9_.+/=-]{20,})`, 'i'), '//registry.npmjs.org/:_authToken={u:40}', 3.5),
  rule('npmrc-basic-auth', 'npm registry basic auth in .npmrc', 'high', ['_auth=', '_auth ='],
    re(String.raw`(?:^|[\s:])_auth\s*=\s*["']?(?<secret>[A-Za-z0-9+/]{16,}={0,2})`, 'm'), '//npm.internal/:_auth={b:40}', 3.5),
  rule('yarnrc-npm-auth-token', 'Yarn npmAuthToken', 'high', ['npmauthtoken'],
    re(String.raw`npmAuthToken:\s*["']?(?<secret>[A-Za-z0-9_.+/=-]{20,})`, 'i'), 'npmAuthToken: {u:40}', 3.5),
  token('pypi-token', 'PyPI upload token', 'critical', ['pypi-ageichlwas5vcmc'],
    String.raw`pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`, 'pypi-AgEIcHlwaS5vcmc{u:70}'),
  token('test-pypi-token', 'TestPyPI upload token', 'high', ['pypi-agendgvzdc5wexbplm9yzw'], 'pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9_-]{50,}', 'pypi-AgENdGVzdC5weXBpLm9yZw{u:70}'),
  token('rubygems-api-key', 'RubyGems API key', 'high', ['rubygems_'], String.raw`rubygems_[a-f0-9]{48}`, 'rubygems_{h:48}'),
  token('nuget-api-key', 'NuGet API key', 'high', ['oy2'], String.raw`oy2[a-z0-9]{43}`, 'oy2{l:43}'),
  rule('nuget-config-password', 'NuGet.config cleartext password', 'high', ['cleartextpassword'],
    re(String.raw`key=\\?["']ClearTextPassword\\?["']\s+value=\\?["'](?<secret>(?![%$])[^"'\s\\]{6,128})\\?["']`, 'i'), '<add key="ClearTextPassword" value="{a:20}" />', 2.5),
  rule('maven-settings-password', 'Maven settings.xml server password', 'high', ['<password>'],
    re(String.raw`<password>(?<secret>[^<>\s$]{6,128})</password>`, 'i'), '<server><id>internal</id><username>ci</username><password>{a:20}</password></server>', 2.5),
  token('dockerhub-pat', 'Docker Hub personal access token', 'high', ['dckr_pat_'], String.raw`dckr_pat_[A-Za-z0-9_-]{27}`, 'dckr_pat_{u:27}'),
  token('dockerhub-org-token', 'Docker Hub organization access token', 'high', ['dckr_oat_'], 'dckr_oat_[A-Za-z0-9_-]{32}', 'dckr_oat_{u:32}'),
  rule('docker-config-auth', 'Docker registry credentials (config.json auth)', 'high', ['"auth"', 'auth\\"'],
    re(String.raw`(?:\\|\x60)?"auth(?:\\|\x60)?"\s*:\s*(?:\\|\x60)?"(?<secret>[A-Za-z0-9+/]{20,}={0,2})(?:\\|\x60)?"`), '{"auths":{"registry.example.io":{"auth":"{b:40}"}}}',
    // `auth` is base64 of `user:password`: a placeholder password (`user:changeme`, `${PASS}`) is not a credential.
    { entropy: 3.5, validate: (secret) => { const plain = decodeBase64Text(secret); return !plain?.includes(':') || !isPlaceholder(plain.slice(plain.indexOf(':') + 1)); },
      negatives: [`{"auths":{"registry.example.io":{"auth":"${Buffer.from('deploy:${REGISTRY_PASSWORD}').toString('base64')}"}}}`] }),
  token('crates-io-token', 'crates.io API token', 'high', ['cio'], 'cio[A-Za-z0-9]{32}', 'cio{a:32}'),
  keyed('hex-pm-api-key', 'Hex.pm API key', 'high', ['hex_api_key', 'hexapikey', 'hex_key'], 'hex_?(?:api_?)?key', '[a-f0-9]{32}', 'HEX_API_KEY={h:32}'),
  keyed('gradle-publish-secret', 'Gradle Plugin Portal publish secret', 'high', ['gradle.publish', 'gradle_publish'], String.raw`gradle[._]?publish[._]?(?:key|secret)`, '[A-Za-z0-9]{32}', 'GRADLE_PUBLISH_SECRET={a:32}'),
  keyed('packagecloud-token', 'packagecloud API token', 'high', ['packagecloud'], 'packagecloud', '[a-f0-9]{48}', 'PACKAGECLOUD_TOKEN={h:48}'),
  keyed('cloudsmith-api-key', 'Cloudsmith API key', 'high', ['cloudsmith'], 'cloudsmith', '[a-f0-9]{40}', 'CLOUDSMITH_API_KEY={h:40}'),
  rule('netrc-password', '.netrc machine password', 'high', ['machine'],
    re(String.raw`\bmachine\s+[^\s]{1,200}\s+login\s+[^\s]{1,200}\s+password\s+(?<secret>[^\s]{6,128})`), 'machine git.internal login deploy password {a:20}', 2.5),
];

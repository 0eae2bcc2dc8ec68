// Credential rules as data, in the manner of gitleaks: keywords that must appear in a file before the
// regex runs, the regex (its `secret` group marks the credential itself), an entropy floor that turns
// away placeholders, and a sample template from which tests build a positive fixture.
//
// Sample templates: {a:N} letters and digits, {h:N} lowercase hex, {H:N} uppercase hex, {A:N} uppercase
// letters and digits, {l:N} lowercase letters and digits, {u:N} base64url, {b:N} base64, {d:N} digits,
// {B:N} lowercase base32, {L:N} letters only, {Z:N} bech32. Fixtures are generated at test time, so no credential-shaped literal lives here.

export type Severity = 'critical' | 'high' | 'medium' | 'low';

export interface SecretRule {
  id: string;
  title: string;
  keywords: string[];
  pattern: RegExp;
  /** Minimum Shannon entropy, in bits per character, of the secret group. */
  entropy: number;
  severity: Severity;
  sample: string;
}

const rule = (
  id: string,
  title: string,
  severity: Severity,
  keywords: string[],
  pattern: RegExp,
  sample: string,
  entropy = 3,
): SecretRule => ({ id, title, severity, keywords, pattern, sample, entropy });

// A credential must not run on into more credential characters: these bound a token on both sides.
const B = String.raw`(?<![A-Za-z0-9_-])`;
const E = String.raw`(?![A-Za-z0-9_-])`;
const re = (source: string, flags = '') => new RegExp(source, flags);
const QUOTE = String.raw`["'\x60]?`;
/** PEM body and the breaks around it, as written in a file or escaped in a JSON or code string (`\n`). */
const PEM_BODY = String.raw`(?:[A-Za-z0-9+/=\s]|\\[nr])`;
const PEM_GAP = String.raw`(?:\s|\\[nr])*`;
/** `name … = "value"` / `name: value` with the value in the `secret` group. */
const assigned = (name: string, value: string) =>
  re(String.raw`(?:${name})[\w.-]{0,24}${QUOTE}\s*(?:=|:|:=|=>|,|\|\||\?\?)\s*${QUOTE}(?<secret>${value})${E}`, 'i');

export const SECRET_RULES: SecretRule[] = [
  // ---- cloud providers ----
  rule('aws-access-key-id', 'AWS access key ID', 'critical', ['akia', 'asia', 'abia', 'acca'],
    re(String.raw`${B}(?<secret>(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})${E}`), 'AKIA{A:16}'),
  rule('aws-secret-access-key', 'AWS secret access key', 'critical', ['aws', 'secret_access', 'secretaccess'],
    assigned(String.raw`aws_?secret_?(?:access_?)?key|secret_?access_?key`, '[A-Za-z0-9/+]{40}'),
    'aws_secret_access_key = "{b:40}"', 4),
  rule('aws-session-token', 'AWS session token', 'high', ['aws_session_token', 'awssessiontoken'],
    assigned('aws_?session_?token', '[A-Za-z0-9/+=]{100,}'), 'aws_session_token = "IQoJb3JpZ2luX2Vj{b:120}"', 4),
  rule('gcp-service-account-key', 'Google Cloud service account key', 'critical', ['private_key_id'],
    re(String.raw`\\?"private_key_id\\?"\s*:\s*\\?"(?<secret>[a-f0-9]{40})\\?"`), '"private_key_id": "{h:40}",'),
  rule('gcp-api-key', 'Google API key', 'high', ['aiza'], re(String.raw`${B}(?<secret>AIza[0-9A-Za-z_-]{35})${E}`), 'AIza{u:35}'),
  rule('gcp-oauth-client-secret', 'Google OAuth client secret', 'high', ['gocspx-'],
    re(String.raw`${B}(?<secret>GOCSPX-[A-Za-z0-9_-]{28})${E}`), 'GOCSPX-{u:28}'),
  rule('google-oauth-refresh-token', 'Google OAuth refresh token', 'high', ['1//0'],
    re(String.raw`${B}(?<secret>1//0[A-Za-z0-9_-]{60,})${E}`), '1//0{u:70}'),
  rule('azure-storage-connection-string', 'Azure Storage connection string', 'critical', ['accountkey='],
    re(String.raw`AccountKey=(?<secret>[A-Za-z0-9+/]{86}==)`, 'i'), 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={b:86}==;EndpointSuffix=core.windows.net'),
  rule('azure-service-bus-connection-string', 'Azure shared access key', 'critical', ['sharedaccesskey='],
    re(String.raw`SharedAccessKey=(?<secret>[A-Za-z0-9+/]{43}=)`, 'i'), 'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={b:43}='),
  rule('azure-sas-token', 'Azure shared access signature', 'high', ['sig='],
    re(String.raw`[?&]sv=\d{4}-\d{2}-\d{2}[^\s"']*&sig=(?<secret>[A-Za-z0-9%+/]{40,}(?:%3D|=){0,2})`, 'i'),
    'https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&srt=o&sp=r&se=2030-01-01&sig={b:43}%3D'),
  rule('azure-ad-client-secret', 'Azure AD client secret', 'high', ['q~'],
    re(String.raw`${B}(?<secret>[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34})${E}`), '{a:3}8Q~{a:34}'),
  rule('alibaba-access-key-id', 'Alibaba Cloud access key ID', 'high', ['ltai'],
    re(String.raw`${B}(?<secret>LTAI[A-Za-z0-9]{20})${E}`), 'LTAI{a:20}'),
  rule('digitalocean-token', 'DigitalOcean token', 'high', ['dop_v1_', 'doo_v1_', 'dor_v1_'],
    re(String.raw`${B}(?<secret>do[opr]_v1_[a-f0-9]{64})${E}`), 'dop_v1_{h:64}'),
  rule('heroku-api-key', 'Heroku API key', 'high', ['heroku'],
    assigned('heroku', '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'), 'HEROKU_API_KEY={h:8}-{h:4}-{h:4}-{h:4}-{h:12}'),
  rule('cloudflare-api-token', 'Cloudflare API token', 'high', ['cloudflare', 'cf_api'],
    assigned('cloudflare|cf_api', '[A-Za-z0-9_-]{40}'), 'CLOUDFLARE_API_TOKEN={u:40}', 3.5),
  rule('hashicorp-vault-token', 'HashiCorp Vault token', 'critical', ['hvs.', 'hvb.'],
    re(String.raw`${B}(?<secret>hv[sb]\.[A-Za-z0-9_-]{90,})${E}`), 'hvs.{u:95}'),
  rule('terraform-cloud-token', 'Terraform Cloud token', 'high', ['.atlasv1.'],
    re(String.raw`${B}(?<secret>[a-z0-9]{14}\.atlasv1\.[a-z0-9_=-]{60,70})${E}`), '{l:14}.atlasv1.{l:66}'),
  rule('pulumi-access-token', 'Pulumi access token', 'high', ['pul-'], re(String.raw`${B}(?<secret>pul-[a-f0-9]{40})${E}`), 'pul-{h:40}'),
  rule('databricks-token', 'Databricks access token', 'high', ['dapi'], re(String.raw`${B}(?<secret>dapi[a-f0-9]{32}(?:-\d)?)${E}`), 'dapi{h:32}'),
  rule('planetscale-token', 'PlanetScale token', 'high', ['pscale_'],
    re(String.raw`${B}(?<secret>pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{43})${E}`), 'pscale_tkn_{u:43}'),
  rule('doppler-token', 'Doppler token', 'high', ['dp.pt.', 'dp.st.'], re(String.raw`${B}(?<secret>dp\.(?:pt|st|sa|ct)\.[A-Za-z0-9]{43})${E}`), 'dp.pt.{a:43}'),

  // ---- code hosts and package registries ----
  rule('github-pat', 'GitHub personal access token', 'critical', ['ghp_'], re(String.raw`${B}(?<secret>ghp_[A-Za-z0-9]{36})${E}`), 'ghp_{a:36}'),
  rule('github-fine-grained-pat', 'GitHub fine-grained personal access token', 'critical', ['github_pat_'],
    re(String.raw`${B}(?<secret>github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})${E}`), 'github_pat_{a:22}_{a:59}'),
  rule('github-oauth-token', 'GitHub OAuth access token', 'high', ['gho_'], re(String.raw`${B}(?<secret>gho_[A-Za-z0-9]{36})${E}`), 'gho_{a:36}'),
  rule('github-app-token', 'GitHub App token', 'high', ['ghu_', 'ghs_'], re(String.raw`${B}(?<secret>gh[us]_[A-Za-z0-9]{36})${E}`), 'ghs_{a:36}'),
  rule('github-refresh-token', 'GitHub refresh token', 'high', ['ghr_'], re(String.raw`${B}(?<secret>ghr_[A-Za-z0-9]{36,76})${E}`), 'ghr_{a:76}'),
  rule('gitlab-pat', 'GitLab personal access token', 'critical', ['glpat-'], re(String.raw`${B}(?<secret>glpat-[A-Za-z0-9_-]{20,})${E}`), 'glpat-{u:20}'),
  rule('gitlab-pipeline-trigger-token', 'GitLab pipeline trigger token', 'high', ['glptt-'], re(String.raw`${B}(?<secret>glptt-[a-f0-9]{40})${E}`), 'glptt-{h:40}'),
  rule('gitlab-runner-token', 'GitLab runner token', 'high', ['glrt-', 'gr1348941'],
    re(String.raw`${B}(?<secret>(?:glrt-|GR1348941)[A-Za-z0-9_-]{20,})${E}`), 'glrt-{u:20}'),
  rule('gitlab-deploy-token', 'GitLab deploy token', 'high', ['gldt-'], re(String.raw`${B}(?<secret>gldt-[A-Za-z0-9_-]{20,})${E}`), 'gldt-{u:20}'),
  rule('gitlab-feed-token', 'GitLab feed token', 'medium', ['glft-'], re(String.raw`${B}(?<secret>glft-[A-Za-z0-9_-]{20,})${E}`), 'glft-{u:20}'),
  rule('azure-devops-pat', 'Azure DevOps personal access token', 'critical', ['azure', 'ado', 'devops', 'vsts'],
    assigned('azure_?devops|ado|vsts|devops', '[a-z2-7]{52}'), 'AZURE_DEVOPS_PAT={B:52}', 3.5),
  rule('bitbucket-app-password', 'Bitbucket app password', 'high', ['atbb'], re(String.raw`${B}(?<secret>ATBB[A-Za-z0-9_=.-]{32,})${E}`), 'ATBB{a:32}'),
  rule('npm-token', 'npm access token', 'critical', ['npm_'], re(String.raw`${B}(?<secret>npm_[A-Za-z0-9]{36})${E}`), 'npm_{a:36}'),
  rule('npmrc-auth-token', 'npm registry auth token in .npmrc', 'high', ['_authtoken'],
    re(String.raw`_authToken\s*=\s*(?<secret>[A-Za-z0-9_.+/=-]{20,})`, 'i'), '//registry.npmjs.org/:_authToken={u:40}', 3.5),
  rule('pypi-token', 'PyPI upload token', 'critical', ['pypi-ageichlwas5vcmc'],
    re(String.raw`${B}(?<secret>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})${E}`), 'pypi-AgEIcHlwaS5vcmc{u:70}'),
  rule('rubygems-api-key', 'RubyGems API key', 'high', ['rubygems_'], re(String.raw`${B}(?<secret>rubygems_[a-f0-9]{48})${E}`), 'rubygems_{h:48}'),
  rule('nuget-api-key', 'NuGet API key', 'high', ['oy2'], re(String.raw`${B}(?<secret>oy2[a-z0-9]{43})${E}`), 'oy2{l:43}'),
  rule('dockerhub-pat', 'Docker Hub personal access token', 'high', ['dckr_pat_'], re(String.raw`${B}(?<secret>dckr_pat_[A-Za-z0-9_-]{27})${E}`), 'dckr_pat_{u:27}'),
  rule('docker-config-auth', 'Docker registry credentials (config.json auth)', 'high', ['"auth"', 'auth\\"'],
    re(String.raw`\\?"auth\\?"\s*:\s*\\?"(?<secret>[A-Za-z0-9+/]{20,}={0,2})\\?"`), '{"auths":{"registry.example.io":{"auth":"{b:40}"}}}', 3.5),

  // ---- messaging, payments and SaaS ----
  rule('slack-bot-token', 'Slack bot token', 'high', ['xoxb-'], re(String.raw`${B}(?<secret>xoxb-\d{10,13}-\d{10,13}-[A-Za-z0-9]{24})${E}`), 'xoxb-{d:12}-{d:12}-{a:24}'),
  rule('slack-user-token', 'Slack user token', 'high', ['xoxp-'], re(String.raw`${B}(?<secret>xoxp-\d{10,13}-\d{10,13}-\d{10,13}-[a-f0-9]{32})${E}`), 'xoxp-{d:12}-{d:12}-{d:12}-{h:32}'),
  rule('slack-app-token', 'Slack app-level token', 'high', ['xapp-'], re(String.raw`${B}(?<secret>xapp-\d-[A-Z0-9]{9,11}-\d{10,13}-[a-f0-9]{64})${E}`), 'xapp-1-{A:11}-{d:13}-{h:64}'),
  rule('slack-webhook-url', 'Slack incoming webhook URL', 'medium', ['hooks.slack.com'],
    re(String.raw`https://hooks\.slack\.com/(?:services|workflows)/(?<secret>T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}/[A-Za-z0-9]{24})`), 'https://hooks.slack.com/services/T{A:10}/B{A:10}/{a:24}'),
  rule('discord-bot-token', 'Discord bot token', 'high', ['discord', 'bot'],
    re(String.raw`${B}(?<secret>[MN][A-Za-z0-9]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})${E}`), 'DISCORD_BOT_TOKEN=M{a:25}.{u:6}.{u:38}'),
  rule('discord-webhook-url', 'Discord webhook URL', 'medium', ['discord'],
    re(String.raw`https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{17,20}/(?<secret>[A-Za-z0-9_-]{60,68})`), 'https://discord.com/api/webhooks/{d:19}/{u:68}'),
  rule('telegram-bot-token', 'Telegram bot token', 'high', ['telegram', 'bot'],
    re(String.raw`${B}(?<secret>\d{8,10}:AA[A-Za-z0-9_-]{33})${E}`), 'TELEGRAM_BOT_TOKEN={d:10}:AA{u:33}'),
  rule('stripe-secret-key', 'Stripe secret key', 'critical', ['sk_live_'], re(String.raw`${B}(?<secret>sk_live_[A-Za-z0-9]{24,99})${E}`), 'sk_live_{a:24}'),
  rule('stripe-restricted-key', 'Stripe restricted key', 'high', ['rk_live_'], re(String.raw`${B}(?<secret>rk_live_[A-Za-z0-9]{24,99})${E}`), 'rk_live_{a:24}'),
  rule('stripe-webhook-secret', 'Stripe webhook signing secret', 'high', ['whsec_'], re(String.raw`${B}(?<secret>whsec_[A-Za-z0-9]{32,})${E}`), 'whsec_{a:32}'),
  rule('square-access-token', 'Square access token', 'high', ['sq0atp-', 'eaaa'],
    re(String.raw`${B}(?<secret>sq0atp-[A-Za-z0-9_-]{22}|EAAA[A-Za-z0-9_-]{60})${E}`), 'sq0atp-{u:22}'),
  rule('square-oauth-secret', 'Square OAuth secret', 'high', ['sq0csp-'], re(String.raw`${B}(?<secret>sq0csp-[A-Za-z0-9_-]{43})${E}`), 'sq0csp-{u:43}'),
  rule('paypal-braintree-token', 'PayPal Braintree access token', 'high', ['access_token$production$'],
    re(String.raw`(?<secret>access_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32})`), 'access_token$production${l:16}${h:32}'),
  rule('shopify-access-token', 'Shopify access token', 'high', ['shpat_', 'shpca_', 'shppa_'],
    re(String.raw`${B}(?<secret>shp(?:at|ca|pa)_[a-fA-F0-9]{32})${E}`), 'shpat_{h:32}'),
  rule('shopify-shared-secret', 'Shopify shared secret', 'high', ['shpss_'], re(String.raw`${B}(?<secret>shpss_[a-fA-F0-9]{32})${E}`), 'shpss_{h:32}'),
  rule('twilio-api-key', 'Twilio API key', 'high', ['twilio', 'sk'], re(String.raw`${B}(?<secret>SK[0-9a-f]{32})${E}`), 'TWILIO_API_KEY=SK{h:32}'),
  rule('twilio-auth-token', 'Twilio auth token', 'high', ['twilio'], assigned('twilio_?auth_?token|twilio_?token', '[0-9a-f]{32}'), 'TWILIO_AUTH_TOKEN={h:32}'),
  rule('sendgrid-api-key', 'SendGrid API key', 'high', ['sg.'], re(String.raw`${B}(?<secret>SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})${E}`), 'SG.{u:22}.{u:43}'),
  rule('mailgun-api-key', 'Mailgun API key', 'high', ['key-', 'mailgun'],
    re(String.raw`${B}(?<secret>key-[0-9a-f]{32}|[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8})${E}`), 'MAILGUN_API_KEY=key-{h:32}'),
  rule('mailchimp-api-key', 'Mailchimp API key', 'high', ['-us'], re(String.raw`${B}(?<secret>[0-9a-f]{32}-us\d{1,2})${E}`), '{h:32}-us14'),
  rule('postmark-server-token', 'Postmark server token', 'high', ['postmark'],
    assigned('postmark', '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'), 'POSTMARK_SERVER_TOKEN={h:8}-{h:4}-{h:4}-{h:4}-{h:12}'),
  rule('datadog-api-key', 'Datadog API key', 'high', ['datadog', 'dd_api_key', 'dd_app_key', 'ddapikey', 'ddappkey'],
    assigned('datadog_?(?:api|app)_?key|dd_?(?:api|app)_?key', '[a-f0-9]{32}(?:[a-f0-9]{8})?'), 'DD_API_KEY={h:32}'),
  rule('new-relic-key', 'New Relic key', 'high', ['nrak-', 'nrjs-', 'nrii-'], re(String.raw`${B}(?<secret>NR(?:AK|JS|II)-[A-Z0-9]{27})${E}`), 'NRAK-{A:27}'),
  rule('sentry-auth-token', 'Sentry auth token', 'high', ['sntrys_', 'sntryu_'],
    re(String.raw`${B}(?<secret>sntryu_[a-f0-9]{64}|sntrys_eyJ[A-Za-z0-9+/=_-]{80,})${E}`), 'sntryu_{h:64}'),
  rule('grafana-token', 'Grafana token', 'high', ['glsa_', 'glc_'],
    re(String.raw`${B}(?<secret>glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2})${E}`), 'glsa_{a:32}_{h:8}'),
  rule('atlassian-api-token', 'Atlassian API token', 'high', ['atatt3'], re(String.raw`${B}(?<secret>ATATT3[A-Za-z0-9_=-]{180,})${E}`), 'ATATT3xFfGF0{u:180}'),
  rule('linear-api-key', 'Linear API key', 'high', ['lin_api_'], re(String.raw`${B}(?<secret>lin_api_[A-Za-z0-9]{40})${E}`), 'lin_api_{a:40}'),
  rule('postman-api-key', 'Postman API key', 'high', ['pmak-'], re(String.raw`${B}(?<secret>PMAK-[a-f0-9]{24}-[a-f0-9]{34})${E}`), 'PMAK-{h:24}-{h:34}'),
  rule('okta-api-token', 'Okta API token', 'high', ['okta'], assigned('okta', '00[A-Za-z0-9_-]{40}'), 'OKTA_API_TOKEN=00{u:40}'),
  rule('algolia-admin-key', 'Algolia admin API key', 'high', ['algolia'], assigned('algolia', '[a-f0-9]{32}'), 'ALGOLIA_ADMIN_KEY={h:32}'),
  rule('mapbox-secret-token', 'Mapbox secret token', 'high', ['sk.eyj'], re(String.raw`${B}(?<secret>sk\.eyJ[A-Za-z0-9_-]{60,}\.[A-Za-z0-9_-]{20,})${E}`), 'sk.eyJ{u:70}.{u:22}'),
  rule('facebook-access-token', 'Facebook access token', 'high', ['eaacedeose0cba', 'eaab'],
    re(String.raw`${B}(?<secret>EAACEdEose0cBA[A-Za-z0-9]{20,}|EAAB[A-Za-z0-9]{100,})${E}`), 'EAACEdEose0cBA{a:40}'),

  // ---- AI providers ----
  rule('openai-api-key', 'OpenAI API key', 'critical', ['t3blbkfj', 'sk-proj-', 'sk-svcacct-', 'sk-admin-'],
    re(String.raw`${B}(?<secret>sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,74}T3BlbkFJ[A-Za-z0-9_-]{20,74})${E}`), 'sk-proj-{u:58}T3BlbkFJ{u:58}'),
  rule('anthropic-api-key', 'Anthropic API key', 'critical', ['sk-ant-'],
    re(String.raw`${B}(?<secret>sk-ant-(?:api03|admin01)-[A-Za-z0-9_-]{93}AA)${E}`), 'sk-ant-api03-{u:93}AA'),
  rule('huggingface-token', 'Hugging Face token', 'high', ['hf_'], re(String.raw`${B}(?<secret>hf_[A-Za-z]{34})${E}`), 'hf_{L:34}', 3.5),

  // ---- keys, tokens and connection strings ----
  rule('bulwark-api-key', 'Bulwark API key', 'critical', ['bwk_'], re(String.raw`${B}(?<secret>bwk_[A-Za-z0-9_-]{40})${E}`), 'bwk_{u:40}'),
  rule('private-key', 'Private key (PEM)', 'critical', ['private key-----'],
    re(String.raw`-----BEGIN (?:RSA |EC |DSA |ENCRYPTED )?PRIVATE KEY-----${PEM_GAP}(?<secret>${PEM_BODY}{64,}?)${PEM_GAP}-----END`),
    '-----BEGIN RSA PRIVATE KEY-----\n{b:64}\n{b:64}\n-----END RSA PRIVATE KEY-----'),
  rule('openssh-private-key', 'OpenSSH private key', 'critical', ['begin openssh private key'],
    re(String.raw`-----BEGIN OPENSSH PRIVATE KEY-----${PEM_GAP}(?<secret>${PEM_BODY}{64,}?)${PEM_GAP}-----END`),
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{b:40}\n{b:64}\n-----END OPENSSH PRIVATE KEY-----'),
  rule('pgp-private-key', 'PGP private key block', 'critical', ['begin pgp private key block'],
    re(String.raw`-----BEGIN PGP PRIVATE KEY BLOCK-----${PEM_GAP}(?:[\w-]+: [^\\\n]*${PEM_GAP})*(?<secret>${PEM_BODY}{64,}?)${PEM_GAP}-----END`),
    '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF{b:58}\n{b:64}\n-----END PGP PRIVATE KEY BLOCK-----'),
  rule('age-secret-key', 'age encryption secret key', 'critical', ['age-secret-key-1'],
    re(String.raw`${B}(?<secret>AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})${E}`), 'AGE-SECRET-KEY-1{Z:58}'),
  rule('jwt', 'JSON Web Token', 'medium', ['eyj'],
    re(String.raw`${B}(?<secret>eyJ[A-Za-z0-9_-]{15,}\.eyJ[A-Za-z0-9_-]{15,}\.[A-Za-z0-9_-]{20,})${E}`), 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{u:40}.{u:43}'),
  rule('database-url-password', 'Database connection URL with a password', 'high',
    ['postgres', 'mysql', 'mongodb', 'redis', 'amqp', 'mssql', 'mariadb', 'jdbc'],
    re(String.raw`\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver)://[^\s:/@"'\x60]{1,64}:(?<secret>[^\s@/"'\x60]{6,128})@[^\s/"'\x60]+`, 'i'),
    'DATABASE_URL=postgres://app:{a:20}@db.internal:5432/app', 2.5),
  rule('url-basic-credentials', 'Credentials embedded in a URL', 'high', ['://'],
    re(String.raw`\bhttps?://[A-Za-z0-9._~-]{1,64}:(?<secret>[A-Za-z0-9._~%!$&'()*+,;=-]{8,128})@[A-Za-z0-9.-]+\.[a-z]{2,}`),
    'https://deploy:{a:24}@git.example-corp.io/repo.git', 3),
  rule('generic-secret-assignment', 'Hard-coded password or secret', 'medium',
    ['pass', 'pwd', 'secret', 'token', 'api_key', 'apikey', 'api-key', 'credential', 'auth_key', 'private_key'],
    re(String.raw`(?:passw(?:or)?d|pwd|secret|token|api[_-]?key|credential|auth[_-]?key|private[_-]?key)[\w.-]{0,20}${QUOTE}\s*(?:=|:|:=|=>|\|\||\?\?)\s*["'\x60](?<secret>[^"'\x60\s]{8,128})["'\x60]`, 'i'),
    'db_password = "{a:20}"', 3.5),
];

// Live validity checks of found credentials: off unless BULWARK_SECRETS_VERIFY is true. Every provider's
// base URL has a default (the provider's public API) that BULWARK_SECRETS_VERIFY_URLS, a JSON object of
// provider key → base URL, can replace (tests point them at loopback stand-ins). A check sends its
// credential only to the base URL of its own provider key; see http.ts.

export interface SecretsVerifySettings {
  enabled: boolean;
  /** Longest one provider request may take. */
  timeoutMs: number;
  /** Longest all of one scan's checks may take together; what is left unchecked then is `unknown`. */
  budgetMs: number;
  /** Checks running at once in one scan. */
  concurrency: number;
  /** Provider key → base URL (`{shop}` and `{account}` stand for a Shopify shop and an Azure storage account). */
  urls: Record<string, string>;
}

/** The providers' public APIs. Keys are what BULWARK_SECRETS_VERIFY_URLS names. */
export const DEFAULT_VERIFY_URLS: Readonly<Record<string, string>> = {
  aws: 'https://sts.amazonaws.com',
  github: 'https://api.github.com',
  gitlab: 'https://gitlab.com',
  slack: 'https://slack.com',
  stripe: 'https://api.stripe.com',
  openai: 'https://api.openai.com',
  anthropic: 'https://api.anthropic.com',
  sendgrid: 'https://api.sendgrid.com',
  twilio: 'https://api.twilio.com',
  npm: 'https://registry.npmjs.org',
  dockerhub: 'https://hub.docker.com',
  datadog: 'https://api.datadoghq.com',
  datadog_eu: 'https://api.datadoghq.eu',
  google: 'https://translation.googleapis.com',
  azure_storage: 'https://{account}.blob.core.windows.net',
  shopify: 'https://{shop}.myshopify.com',
  huggingface: 'https://huggingface.co',
  digitalocean: 'https://api.digitalocean.com',
  heroku: 'https://api.heroku.com',
  mailgun: 'https://api.mailgun.net',
  mailgun_eu: 'https://api.eu.mailgun.net',
};

export const DEFAULT_VERIFY_SETTINGS: SecretsVerifySettings = { enabled: false, timeoutMs: 5000, budgetMs: 120_000, concurrency: 8, urls: { ...DEFAULT_VERIFY_URLS } };

/** BULWARK_SECRETS_VERIFY, _TIMEOUT_SECONDS, _BUDGET_SECONDS and _URLS; a malformed value is refused at start. */
export function secretsVerifyFromEnv(env: NodeJS.ProcessEnv): SecretsVerifySettings {
  const enabled = /^(1|true|yes|on)$/i.test(env.BULWARK_SECRETS_VERIFY ?? '');
  return {
    enabled,
    timeoutMs: secondsFrom(env, 'BULWARK_SECRETS_VERIFY_TIMEOUT_SECONDS', DEFAULT_VERIFY_SETTINGS.timeoutMs / 1000, 60),
    budgetMs: secondsFrom(env, 'BULWARK_SECRETS_VERIFY_BUDGET_SECONDS', DEFAULT_VERIFY_SETTINGS.budgetMs / 1000, 3600),
    concurrency: DEFAULT_VERIFY_SETTINGS.concurrency,
    urls: verifyUrlsFrom(env.BULWARK_SECRETS_VERIFY_URLS),
  };
}

/** A number of seconds above 0 and at most `max`, as milliseconds. */
function secondsFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const raw = env[name];
  const seconds = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > max) throw new Error(`${name} must be a number of seconds between 0 and ${max}, got "${raw}"`);
  return Math.round(seconds * 1000);
}

function verifyUrlsFrom(raw: string | undefined): Record<string, string> {
  const urls = { ...DEFAULT_VERIFY_URLS };
  if (!raw?.trim()) return urls;
  let given: unknown;
  try {
    given = JSON.parse(raw);
  } catch {
    throw new Error('BULWARK_SECRETS_VERIFY_URLS must be a JSON object of provider → base URL');
  }
  if (!given || typeof given !== 'object' || Array.isArray(given)) throw new Error('BULWARK_SECRETS_VERIFY_URLS must be a JSON object of provider → base URL');
  for (const [key, value] of Object.entries(given)) {
    if (!(key in DEFAULT_VERIFY_URLS)) throw new Error(`BULWARK_SECRETS_VERIFY_URLS: unknown provider "${key}"; known: ${Object.keys(DEFAULT_VERIFY_URLS).join(', ')}`);
    const probe = typeof value === 'string' ? value.replace(/\{(shop|account)\}/g, 'x') : '';
    if (!URL.canParse(probe) || !/^https?:$/.test(new URL(probe).protocol)) {
      throw new Error(`BULWARK_SECRETS_VERIFY_URLS: "${key}" must be an http(s) base URL`);
    }
    urls[key] = (value as string).replace(/\/+$/, '');
  }
  return urls;
}

import { detectSecrets } from './detector.ts';
import { maskSecret } from './text-checks.ts';

/** The text with every credential the detector finds in it replaced by its masked form. */
export function maskSecretsIn(text: string): string {
  let masked = text;
  const secrets = [...new Set(detectSecrets(text).map((m) => m.secret))].sort((a, b) => b.length - a.length);
  for (const secret of secrets) masked = masked.split(secret).join(maskSecret(secret));
  return masked;
}

/**
 * A line that held a credential, as an excerpt may show it: besides the credential, every run of eight or
 * more letters and digits is masked, since a credential's neighbours (a webhook's id, a key's account) are
 * often as random as itself. Shorter names and the line's shape stay, so a reader still recognizes it.
 */
export function maskCredentialLine(text: string): string {
  return maskSecretsIn(text).replace(/[A-Za-z0-9]{8,}/g, (run) => maskSecret(run));
}

import { detectSecrets } from '../engines/secrets/detector.ts';
import { maskSecret } from '../engines/secrets/text-checks.ts';

/**
 * A diff as the API shows it: every credential the detector finds, such as the literal a secrets fix
 * removes, is replaced by its masked form. The applicable diff is kept sealed beside it.
 */
export function maskDiff(diff: string): string {
  let masked = diff;
  const secrets = [...new Set(detectSecrets(diff).map((m) => m.secret))].sort((a, b) => b.length - a.length);
  for (const secret of secrets) masked = masked.split(secret).join(maskSecret(secret));
  return masked;
}

import { maskSecretsIn } from '../scanning/secrets/mask-text.ts';

/**
 * A diff as the API shows it: every credential the detector finds, such as the literal a secrets fix
 * removes, is replaced by its masked form. The applicable diff is kept sealed beside it.
 */
export function maskDiff(diff: string): string {
  return maskSecretsIn(diff);
}

import { detectSecrets } from '../scanning/secrets/detector.ts';
import { maskSecret } from '../scanning/secrets/text-checks.ts';

/**
 * Keeps credentials in the repository away from the model: every text a tool returns has each secret
 * the detector finds replaced by a placeholder naming its masked form, and edits put the real value
 * back, so the agent can move code around a secret without ever seeing it. A multi-line secret keeps
 * its line count, so line numbers stay true.
 */
export class SecretVeil {
  readonly #placeholders = new Map<string, string>();
  readonly #secrets = new Map<string, string>();

  hide(text: string): string {
    for (const match of detectSecrets(text)) this.#placeholderFor(match.secret);
    let hidden = text;
    // Longest first, so a secret that contains another is replaced whole.
    for (const [secret, placeholder] of [...this.#placeholders].sort((a, b) => b[0].length - a[0].length)) {
      if (hidden.includes(secret)) hidden = hidden.split(secret).join(placeholder);
    }
    return hidden;
  }

  /** Placeholders in `text`, so an edit can be checked not to copy a secret somewhere new. */
  placeholdersIn(text: string): string[] {
    return [...this.#secrets.keys()].filter((placeholder) => text.includes(placeholder.trimEnd()));
  }

  reveal(text: string): string {
    let revealed = text;
    for (const [placeholder, secret] of this.#secrets) if (revealed.includes(placeholder)) revealed = revealed.split(placeholder).join(secret);
    return revealed;
  }

  #placeholderFor(secret: string): string {
    const known = this.#placeholders.get(secret);
    if (known) return known;
    const lines = secret.split('\n').length;
    const placeholder = `⟦secret-${this.#placeholders.size + 1} ${maskSecret(secret)}⟧${'\n'.repeat(lines - 1)}`;
    this.#placeholders.set(secret, placeholder);
    this.#secrets.set(placeholder, secret);
    return placeholder;
  }
}

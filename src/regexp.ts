/**
 * Text as a regular expression that matches it literally. Node 24 has RegExp.escape, but TypeScript's
 * libraries do not declare it yet.
 */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

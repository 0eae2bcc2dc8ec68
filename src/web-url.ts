/**
 * The text when it is an absolute http(s) URL, the only kind a page may link to; null for anything else
 * (`javascript:`, `data:`, relative or unparseable). Every URL that arrives from outside (a code host's
 * answer, an advisory's reference) passes here before it is stored.
 */
export function webUrl(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '' ? text : null;
}

// Where a browser may be sent after signing in: a path of this site only. Used by the server's OpenID
// Connect redirects and by the console's sign-in page, so both judge a destination the same way.
// Browsers drop tabs and line breaks from URLs and read `\` as `/`, so `/\t/evil.example` and
// `/\evil.example` lead to another site as surely as `//evil.example`: anything holding a control
// character, whitespace or a backslash, before or after percent-decoding, is refused.

const PLACEHOLDER_ORIGIN = 'https://bulwark.invalid';
const MAX_LENGTH = 2048;
const UNSAFE = /[\u0000-\u0020\u007f-\u009f\\\s]/u;

function sameSitePath(text: string): boolean {
  return text.startsWith('/') && !text.startsWith('//') && !UNSAFE.test(text);
}

/** The path (with query and fragment) to go to, normalized and percent-encoded; `/` for anything else. */
export function safeReturnPath(value: unknown, origin: string = PLACEHOLDER_ORIGIN): string {
  if (typeof value !== 'string' || value.length > MAX_LENGTH || !sameSitePath(value)) return '/';
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return '/';
  }
  if (!sameSitePath(decoded)) return '/';
  let url: URL;
  try {
    url = new URL(value, origin);
  } catch {
    return '/';
  }
  if (url.origin !== new URL(origin).origin) return '/';
  return `${url.pathname}${url.search}${url.hash}`;
}

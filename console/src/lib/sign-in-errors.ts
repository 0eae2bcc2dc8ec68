// The sign-in page's `?error=` is a code chosen by the server (src/http/routes/oidc.ts), never text to show:
// a link anyone can craft must not put words on this page. Unknown codes get the general message.

const MESSAGES: Record<string, string> = {
  provider_unreachable: 'The single sign-on provider could not be reached. Try again later.',
  provider_refused: 'The single sign-on provider did not complete the sign-in. Try again.',
  no_email: 'The single sign-on provider did not share your email address, so no account could be matched.',
  unverified_email: 'The single sign-on provider has not verified your email address, so no account could be matched. Verify it with the provider and try again.',
  sign_in_expired: 'The sign-in took too long or was started in another browser. Try again.',
  account_disabled: 'This account is disabled. Ask an administrator of your organization.',
};

const GENERAL = 'Single sign-on did not complete. Try again.';

/** The message for a code the sign-in page was sent back with; null when there is none. */
export function signInErrorMessage(code: string | null): string | null {
  if (code === null || code === '') return null;
  return Object.hasOwn(MESSAGES, code) ? MESSAGES[code]! : GENERAL;
}

export const SIGN_IN_ERROR_CODES = Object.keys(MESSAGES);

// Whether a failure to push or to open a pull request is about the source's access token, which the
// caller can fix by storing another, rather than anything else.

/**
 * Whether a host's API refusal is about the token itself: 401 (not accepted) or 403 (lacks the rights),
 * except GitHub's 403 for a rate limit, which passes with time.
 */
export function hostRefusedToken(status: number, message: string): boolean {
  return status === 401 || (status === 403 && !/rate limit/i.test(message));
}

/** Whether git's words say the host refused the credentials (clone, fetch or push over HTTPS). */
export function gitRefusedToken(message: string): boolean {
  return /Authentication failed|returned error: 40[13]\b|Permission to \S+ denied|could not read (Username|Password)|HTTP Basic: Access denied|not authorized/i.test(
    message,
  );
}

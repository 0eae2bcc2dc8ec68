import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import { Alert, AuthPage } from '../components/ui.tsx';
import { signInErrorMessage } from '../lib/sign-in-errors.ts';
import { useLoad } from '../lib/use-load.ts';
import { safeReturnPath } from '../../../src/http/return-path.ts';
import { navigate, useLocation } from '../router.tsx';
import { useSession } from '../session.tsx';

/** Only paths of this console are followed after signing in (never another site, nor this page again). */
export function safeNext(value: string | null): string {
  const path = safeReturnPath(value, window.location.origin);
  return path.startsWith('/login') ? '/' : path;
}

/** `42 seconds`, or `15 minutes` for longer waits. */
function waitText(seconds: number): string {
  if (seconds < 120) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

export function LoginPage() {
  const { signIn, status } = useSession();
  const { search } = useLocation();
  const next = safeNext(search.get('next'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [waitUntil, setWaitUntil] = useState<number | null>(null);
  const [now, setNow] = useState(Date.now());
  const methods = useLoad('sign-in-methods', () => api.GET('/console/api/sign-in-methods'));
  const oidc = methods.data?.oidc ?? null;
  const passwordAllowed = methods.data?.password ?? true;
  // A failed single sign-on comes back here with the code of its reason.
  const returnedError = signInErrorMessage(search.get('error'));

  useEffect(() => {
    if (status === 'signed-in') navigate(next, { replace: true });
  }, [status, next]);
  useEffect(() => {
    if (waitUntil === null) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [waitUntil]);

  const secondsLeft = waitUntil === null ? 0 : Math.max(0, Math.ceil((waitUntil - now) / 1000));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const result = await signIn(email.trim(), password);
    setBusy(false);
    if (result.ok) return;
    setPassword('');
    if (result.retryAfter !== undefined) {
      setWaitUntil(Date.now() + result.retryAfter * 1000);
      setNow(Date.now());
    }
    setError(result.message);
  };

  return (
    <AuthPage title="Sign in">
      <p className="muted">Security scanning, findings triage and autofix for your organization.</p>
      {returnedError && !error ? <Alert>{returnedError}</Alert> : null}
      {error ? (
        <Alert>
          {error}
          {secondsLeft > 0 ? ` Try again in ${waitText(secondsLeft)}.` : waitUntil !== null ? ' You can try again now.' : ''}
        </Alert>
      ) : null}
      {oidc ? (
        <>
          <a className="button secondary wide" href={`${oidc.start_url}?return_to=${encodeURIComponent(next)}`}>
            Sign in with {oidc.name}
          </a>
          {passwordAllowed ? <p className="divider">or with a password</p> : null}
        </>
      ) : null}
      {passwordAllowed ? (
        <form onSubmit={(event) => void submit(event)} className="stack">
          <div className="field">
            <label htmlFor="login-email">Email</label>
            <input id="login-email" type="email" autoComplete="username" required value={email} onChange={(e) => {
                setEmail(e.target.value);
                // The lock is per email (and address): another email may be tried.
                if (waitUntil !== null) {
                  setWaitUntil(null);
                  setError(null);
                }
              }}
              autoFocus
            />
          </div>
          <div className="field">
            <label htmlFor="login-password">Password</label>
            <input id="login-password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
          </div>
          <button type="submit" className="button primary wide" disabled={busy || secondsLeft > 0}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      ) : null}
    </AuthPage>
  );
}

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, onSignedOut, setCsrfToken } from './api/client.ts';
import { errorText, retryAfterSeconds } from './api/errors.ts';
import type { Session } from './api/types.ts';

export type SignInResult = { ok: true } | { ok: false; message: string; retryAfter?: number };

interface SessionState {
  status: 'loading' | 'signed-out' | 'signed-in';
  session: Session | null;
  signIn(email: string, password: string): Promise<SignInResult>;
  signOut(everywhere?: boolean): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(null);
  const [status, setStatus] = useState<SessionState['status']>('loading');

  const adopt = useCallback((next: Session | null) => {
    setCsrfToken(next?.csrf_token ?? null);
    setSession(next);
    setStatus(next ? 'signed-in' : 'signed-out');
  }, []);

  useEffect(() => {
    let live = true;
    api.GET('/console/api/session').then(
      ({ data }) => live && adopt(data ?? null),
      () => live && adopt(null),
    );
    const stop = onSignedOut(() => adopt(null));
    return () => {
      live = false;
      stop();
    };
  }, [adopt]);

  const signIn = useCallback(
    async (email: string, password: string): Promise<SignInResult> => {
      try {
        const { data, error, response } = await api.POST('/console/api/session', { body: { email, password } });
        if (data) {
          adopt(data);
          return { ok: true };
        }
        if (response.status === 401) return { ok: false, message: 'The email or password is not right, or the account is disabled.' };
        if (response.status === 429) {
          const retryAfter = retryAfterSeconds(response);
          return { ok: false, message: 'Too many failed sign-in attempts.', retryAfter };
        }
        return { ok: false, message: errorText(error, response) };
      } catch {
        return { ok: false, message: 'The service could not be reached. Check your connection and try again.' };
      }
    },
    [adopt],
  );

  const signOut = useCallback(
    async (everywhere = false) => {
      await (everywhere ? api.DELETE('/console/api/sessions') : api.DELETE('/console/api/session')).catch(() => undefined);
      adopt(null);
    },
    [adopt],
  );

  const value = useMemo(() => ({ status, session, signIn, signOut }), [status, session, signIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}

import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText } from '../api/errors.ts';

/** What a typed client call gives back. */
export interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  status: number | null;
  loading: boolean;
  reload(): void;
}

/**
 * Runs `load` when `key` changes (and on reload()), keeping the last answer while the next one loads.
 * With `pollMs`, loads again on that interval while `shouldPoll(data)` holds.
 */
export function useLoad<A extends Answer<unknown>, T = Exclude<A['data'], undefined>>(
  key: string | null,
  load: () => Promise<A>,
  options: { pollMs?: number; shouldPoll?: (data: T) => boolean } = {},
): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<number | null>(null);
  const [loading, setLoading] = useState(key !== null);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const optionsRef = useRef(options);
  optionsRef.current = options;
  const lastKey = useRef<string | null>(null);

  useEffect(() => {
    if (key === null) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (lastKey.current !== key) setData(undefined);
    lastKey.current = key;
    const run = async (first: boolean) => {
      if (first) setLoading(true);
      try {
        const answer = await loadRef.current();
        if (!live) return;
        setStatus(answer.response.status);
        if (answer.data !== undefined) {
          setData(answer.data as T);
          setError(null);
        } else setError(errorText(answer.error, answer.response));
        const { pollMs, shouldPoll } = optionsRef.current;
        if (pollMs && answer.data !== undefined && (!shouldPoll || shouldPoll(answer.data as T))) timer = setTimeout(() => void run(false), pollMs);
      } catch {
        if (live) setError('The service could not be reached.');
      } finally {
        if (live && first) setLoading(false);
      }
    };
    void run(true);
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [key, tick]);

  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data, error, status, loading, reload };
}

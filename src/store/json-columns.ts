// JSON-valued columns are TEXT on both databases (so SQLite and PostgreSQL return the same strings);
// every store module encodes and decodes them through these two functions and nothing else does.

export function encodeJson(value: unknown): string {
  return JSON.stringify(value ?? null);
}

export function decodeJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  return JSON.parse(text) as T;
}

/** Prints one JSON object with --json, a human line otherwise. */
export function report(json: boolean, value: Record<string, unknown>, human: string): void {
  process.stdout.write(json ? JSON.stringify(value) + '\n' : human + '\n');
}

export class UsageError extends Error {}

export function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function optionalInt(values: Record<string, unknown>, name: string): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new UsageError(`--${name} must be a non-negative integer`);
  return parsed;
}

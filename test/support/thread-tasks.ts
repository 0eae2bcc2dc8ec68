// Tasks for the engine worker pool's tests: each misbehaves the way a real engine thread could.

export function double(n: number): number {
  return n * 2;
}

export function refuse(): never {
  throw new TypeError('this input is not supported');
}

/** The thread ends under the task, as a native crash or an exit in a library would end it. */
export function exitThread(): Promise<never> {
  return new Promise(() => process.exit(7));
}

/** Synchronous work that never ends on its own. */
export function spin(): void {
  for (;;);
}

import v8 from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | undefined;

/** A full garbage collection, whether or not Node was started with --expose-gc. */
export function collectGarbage(): void {
  if (!gc) {
    if (typeof globalThis.gc === 'function') gc = globalThis.gc;
    else {
      v8.setFlagsFromString('--expose-gc');
      gc = vm.runInNewContext('gc') as () => void;
    }
  }
  gc();
}

import { collectGarbage } from '../../observability/collect-garbage.ts';

/**
 * Lets go of the syntax trees a file-by-file pass no longer holds, every MiB of source: they live in native
 * memory V8 does not see, so it would not collect them soon, and their native side is freed by finalizers
 * that run on the event loop, which a pass that never yields would starve.
 */
export class TreeRelease {
  private parsed = 0;

  /** Counts `chars` more of parsed source, and releases what is garbage once enough has been parsed. */
  async after(chars: number): Promise<void> {
    this.parsed += chars;
    if (this.parsed < RELEASE_EVERY_CHARS) return;
    this.parsed = 0;
    collectGarbage();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const RELEASE_EVERY_CHARS = 1024 * 1024;

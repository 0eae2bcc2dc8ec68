import { collectGarbage } from '../observability/collect-garbage.ts';

/**
 * Lets go of the syntax trees a pass over files no longer holds, every MiB of source by default: they live in native
 * memory V8 does not see, so it would not collect them soon, and their native side is freed by finalizers
 * that run on the event loop, which a pass that never yields would starve.
 */
export class TreeRelease {
  private parsed = 0;
  private readonly everyChars: number;

  /** `everyChars`: how much source is parsed between releases; more costs memory, less costs collections. */
  constructor(everyChars = RELEASE_EVERY_CHARS) {
    this.everyChars = everyChars;
  }

  /** Counts `chars` more of parsed source, and releases what is garbage once enough has been parsed. */
  async after(chars: number): Promise<void> {
    this.parsed += chars;
    if (this.parsed < this.everyChars) return;
    this.parsed = 0;
    collectGarbage();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const RELEASE_EVERY_CHARS = 1024 * 1024;

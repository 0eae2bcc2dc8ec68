import type { ScanProgress } from '../scanning/engine.ts';

/** The part of a stream the progress display needs; process.stderr in the CLI. */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface ProgressDisplay {
  update(progress: ScanProgress): void;
  /** A message that must stay on screen: the progress line is cleared first and drawn again on the next update. */
  note(message: string): void;
  /** Clears the progress line, so the report and later output start on a clean line. */
  finish(): void;
}

const CLEAR_LINE = '\r\x1b[2K';

function percentOf(progress: ScanProgress): number {
  return progress.total ? Math.floor(((progress.done ?? 0) * 100) / progress.total) : 100;
}

/** `scanning files 12/340 (3%)`, or the phase alone when it has no count. */
export function progressLine(progress: ScanProgress): string {
  if (progress.total === undefined) return progress.phase;
  return `${progress.phase} ${progress.done ?? 0}/${progress.total} (${percentOf(progress)}%)`;
}

/**
 * A one-line progress display on a terminal, redrawn when the phase or the whole percent changes (not on
 * every file); on anything that is not a terminal (CI logs, pipes, files) it shows no progress, and notes
 * are written as plain lines.
 */
export function progressDisplay(stream: ProgressStream): ProgressDisplay {
  const interactive = stream.isTTY === true;
  let shown = '';
  let drawn = false;
  return {
    update(progress) {
      if (!interactive) return;
      const key = `${progress.phase}\0${progress.total === undefined ? '' : percentOf(progress)}`;
      if (drawn && key === shown) return;
      shown = key;
      drawn = true;
      stream.write(`${CLEAR_LINE}bulwark: ${progressLine(progress)}`);
    },
    note(message) {
      if (drawn) stream.write(CLEAR_LINE);
      drawn = false;
      stream.write(`bulwark: ${message}\n`);
    },
    finish() {
      if (drawn) stream.write(CLEAR_LINE);
      drawn = false;
    },
  };
}

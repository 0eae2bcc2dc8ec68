import { credentialsToMask } from './detector.ts';
import { maskSecret } from './text-checks.ts';

/** A reading of a text (as it stands, or one side of a diff), and where each of its characters came from. */
interface View {
  text: string;
  /** For an index of `text`, the index of the same character in the original. */
  origin(index: number): number;
}

const DIFF_PREFIX = /^[-+ ]/;

/**
 * One side of a unified diff as the file read: context lines and the side's own (`-` for the old file,
 * `+` for the new) without their markers, the other side's lines left out. A key removed or added over
 * many lines is one marked line each, which no rule reads as a key until the markers are gone.
 */
function diffSide(text: string, side: '-' | '+'): View {
  const other = side === '-' ? '+' : '-';
  let out = '';
  const origin: number[] = [];
  let index = 0;
  for (const line of text.split('\n')) {
    if (line[0] !== other) {
      const skip = DIFF_PREFIX.test(line) ? 1 : 0;
      for (let i = skip; i < line.length; i++) origin.push(index + i);
      origin.push(index + line.length); // the newline
      out += line.slice(skip) + '\n';
    }
    index += line.length + 1;
  }
  return { text: out.slice(0, -1), origin: (i) => origin[i] };
}

interface Replacement {
  start: number;
  end: number;
  text: string;
}

/**
 * The original spans a secret found in a view covers, one per line: the first shows the masked secret,
 * the others only stars, so the text keeps its lines (and a diff its hunk counts and markers).
 */
function replacementsFor(view: View, offset: number, secret: string, keepMarkers: boolean): Replacement[] {
  const pieces: Replacement[] = [];
  let start = offset;
  for (const part of secret.split('\n')) {
    // Read as it stands, a diff's `+` and ` ` markers pass for key characters: they stay.
    const marker = keepMarkers && (start === 0 || view.text[start - 1] === '\n') && DIFF_PREFIX.test(part) ? 1 : 0;
    const length = part.replace(/\r$/, '').length;
    if (length > marker) {
      pieces.push({ start: view.origin(start + marker), end: view.origin(start + length - 1) + 1, text: pieces.length ? '*'.repeat(8) : maskSecret(secret) });
    }
    start += part.length + 1;
  }
  return pieces;
}

/**
 * The text with every credential the detector finds in it replaced by its masked form, also when the text
 * is a unified diff whose markers split a multi-line key (a PEM or OpenSSH key, a PGP block). Single-line
 * credentials are also masked wherever else they occur in the text.
 */
export function maskSecretsIn(text: string): string {
  const raw: View = { text, origin: (i) => i };
  const isDiffLike = /^[-+ ]/m.test(text);
  const views = isDiffLike ? [raw, diffSide(text, '-'), diffSide(text, '+')] : [raw];
  const replacements: Replacement[] = [];
  const singleLine = new Set<string>();
  for (const view of views) {
    for (const match of credentialsToMask(view.text)) {
      replacements.push(...replacementsFor(view, match.offset, match.secret, isDiffLike && view === raw));
      if (!match.secret.includes('\n')) singleLine.add(match.secret);
    }
  }
  let masked = applyReplacements(text, replacements);
  for (const secret of [...singleLine].sort((a, b) => b.length - a.length)) masked = masked.split(secret).join(maskSecret(secret));
  return masked;
}

/** Applies the spans in one pass; of overlapping spans, the one starting first wins, widened to cover both. */
function applyReplacements(text: string, replacements: Replacement[]): string {
  const sorted = [...replacements].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Replacement[] = [];
  for (const r of sorted) {
    const last = merged.at(-1);
    if (last && r.start < last.end) last.end = Math.max(last.end, r.end);
    else merged.push({ ...r });
  }
  const parts: string[] = [];
  let at = 0;
  for (const r of merged) {
    parts.push(text.slice(at, r.start), r.text);
    at = r.end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

/**
 * A line that held a credential, as an excerpt may show it: besides the credential, every run of eight or
 * more letters and digits is masked, since a credential's neighbours (a webhook's id, a key's account) are
 * often as random as itself. Shorter names and the line's shape stay, so a reader still recognizes it.
 */
export function maskCredentialLine(text: string): string {
  return maskSecretsIn(text).replace(/[A-Za-z0-9]{8,}/g, (run) => maskSecret(run));
}

import path from 'node:path';
import { normalizePythonName } from '../../../inventory/extractors/python/python-names.ts';
import { alreadyFixed, needsBump, type BumpContext, type BumpResult, type DependencyBump, type ReadFile } from './dependency-bump.ts';
import type { Pin } from './python-resolve.ts';
import { bumpResolved } from './resolved-bump.ts';
import { joinLines, splitLines } from '../shared/text-edits.ts';

// pip requirements files: `name==old` becomes `name==fixed`, extras, markers and comments kept. The
// pin's `--hash` options belong to the old version, so they go, and the note says to regenerate them
// (pip's hash-checking mode wants one for every requirement). The file is edited line by line, so the
// rest of it stays byte for byte.

/** `name[extras] ==version` at the start of a requirement line. */
const PIN = /^(\s*)([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(\s*(?:\[[^\]]*\])?\s*)(===|==)(\s*)([^\s,;#\\]+)/;
const HASH_OPTION = /\s*--hash(?:=|\s+)\S+/g;
const COMMENT = /(?:^|\s+)#.*$/;

/** The plain bump, with the file's other pins moved along where the new release requires (see resolved-bump.ts). */
export function bumpRequirementsResolved(bump: DependencyBump, text: string, read: ReadFile, context: BumpContext): Promise<BumpResult> {
  return bumpResolved(bump, text, read, context, pinsOf(text), bumpRequirements);
}

/** The file's `==` pins by normalized name (the first of a name, as pip would refuse two). */
export function pinsOf(text: string): Map<string, Pin> {
  const pins = new Map<string, Pin>();
  let logical = '';
  for (const line of splitLines(text).lines) {
    if (line.endsWith('\\') && !/^\s*#/.test(line)) {
      logical += line.slice(0, -1);
      continue;
    }
    const pin = PIN.exec(logical + line);
    logical = '';
    if (pin && !pins.has(normalizePythonName(pin[2]))) pins.set(normalizePythonName(pin[2]), { name: pin[2], version: pin[6] });
  }
  return pins;
}

export async function bumpRequirements(bump: DependencyBump, text: string, read: ReadFile): Promise<BumpResult> {
  const wanted = normalizePythonName(bump.name);
  const { lines, breaks } = splitLines(text);
  const out: string[] = [];
  const outBreaks: string[] = [];
  let pins = 0;
  let hashesDropped = false;

  for (let i = 0; i < lines.length; ) {
    // A logical line: physical lines joined by trailing backslashes (a comment line never continues).
    let last = i;
    while (last < lines.length - 1 && lines[last].endsWith('\\') && !/^\s*#/.test(lines[last])) last++;
    const group = lines.slice(i, last + 1);
    const groupBreaks = breaks.slice(i, last + 1);
    i = last + 1;
    const rewritten = withVersion(group, wanted, bump);
    if (!rewritten) {
      out.push(...group);
      outBreaks.push(...groupBreaks);
      continue;
    }
    pins++;
    const kept = withoutHashes(rewritten);
    hashesDropped ||= kept.dropped;
    out.push(...kept.lines);
    // The group's last break ends it; the breaks inside it are the file's own.
    outBreaks.push(...kept.lines.map((_, k) => (k === kept.lines.length - 1 ? groupBreaks.at(-1)! : groupBreaks[k])));
  }
  if (!pins) return alreadyFixed(bump);

  const notes = [`Pinned ${bump.name} to ${bump.fixed} instead of ${bump.installed} in ${bump.file}`];
  if (hashesDropped) notes.push(`removed its --hash options, which named the old version's files: regenerate them (pip-compile --generate-hashes), as pip wants a hash for every requirement once any has one`);
  const source = bump.file.replace(/\.txt$/, '.in');
  if (source !== bump.file && (await read(source)) !== null) notes.push(`make sure ${path.posix.basename(source)} admits ${bump.fixed} before it is compiled again`);
  return { kind: 'bumped', files: new Map([[bump.file, joinLines(out, outBreaks)]]), note: notes.join('; ') };
}

/**
 * Physical lines of one requirement with its `--hash` options removed, lines left empty dropped, and the
 * continuation backslashes set again: on every line but the last. A comment that ended a removed line
 * moves to the last line.
 */
/**
 * The requirement's physical lines with its pinned version replaced, or null when it is not a pin of the
 * package below the fix. pip joins continuation lines without a space, so `name==\` + `1.0` pins 1.0.
 */
function withVersion(group: string[], wanted: string, bump: DependencyBump): string[] | null {
  const bodies = group.map((line) => (line.endsWith('\\') ? line.slice(0, -1) : line));
  const pin = PIN.exec(bodies.join(''));
  if (!pin || normalizePythonName(pin[2]) !== wanted || !needsBump(bump, pin[6])) return null;
  let start = pin[0].length - pin[6].length;
  const index = bodies.findIndex((body) => {
    if (start < body.length) return true;
    start -= body.length;
    return false;
  });
  if (index === -1 || start + pin[6].length > bodies[index].length) return null;
  const line = group[index];
  return group.map((l, i) => (i === index ? line.slice(0, start) + bump.fixed + line.slice(start + pin[6].length) : l));
}

function withoutHashes(group: string[]): { lines: string[]; dropped: boolean } {
  let dropped = false;
  const comments: string[] = [];
  const kept: { body: string; continuation: string }[] = [];
  group.forEach((line, index) => {
    const continuation = /\s*\\$/.exec(line)?.[0] ?? ' \\';
    let body = line.slice(0, line.length - (line.endsWith('\\') ? continuation.length : 0));
    const comment = COMMENT.exec(body);
    if (comment) body = body.slice(0, comment.index);
    const stripped = body.replace(HASH_OPTION, () => {
      dropped = true;
      return '';
    });
    if (stripped.trim() === '' && index > 0) {
      if (comment) comments.push(comment[0].trim());
      return;
    }
    kept.push({ body: stripped.trimEnd() + (comment ? comment[0] : ''), continuation });
  });
  if (comments.length) kept[kept.length - 1].body += `  ${comments.join(' ')}`;
  return { lines: kept.map((line, i) => (i < kept.length - 1 ? line.body + line.continuation : line.body)), dropped };
}

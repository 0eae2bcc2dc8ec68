// Where a SARIF result is, as a path of the repository it was imported into. Tools write locations every
// way SARIF allows: a relative URI, one relative to a named base (`uriBaseId`, resolved through the run's
// `originalUriBaseIds`), or an absolute `file:` URI of the machine the tool ran on. A path comes out of here
// only when it names a file inside the repository:
//   - a relative URI is read from the repository's root, after the bases it names that are themselves
//     relative; a base with an absolute URI is where the tool's root was, so the URI is relative to the root;
//   - an absolute path or `file:` URI counts only under a root the caller or the log names (the import's
//     `source_root`, an absolute `originalUriBaseIds` entry, an invocation's working directory);
//   - `..` anywhere, other schemes, control characters and malformed escapes are refused.

export type PathReading = { path: string } | { refused: string };

/** The longest repository path kept; a longer one is refused. */
const MAX_PATH = 1024;

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const WINDOWS_ABSOLUTE = /^[a-z]:[\\/]/i;

type Bases = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An absolute path from a `file:` URI or a plain absolute path, with forward slashes; null when it is neither. */
export function absolutePathOf(text: string): string | null {
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase();
  if (scheme && !(scheme.length === 1 && WINDOWS_ABSOLUTE.test(text))) {
    if (scheme !== 'file') return null;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return null;
    }
    if (url.host !== '' && url.host !== 'localhost') return null;
    let pathname: string;
    try {
      pathname = decodeURIComponent(url.pathname);
    } catch {
      return null;
    }
    // file:///C:/dir → C:/dir
    return /^\/[a-z]:\//i.test(pathname) ? pathname.slice(1) : pathname;
  }
  if (text.startsWith('/') || text.startsWith('\\') || WINDOWS_ABSOLUTE.test(text)) return text.replace(/\\/g, '/');
  return null;
}

/** An absolute path's segments, `.` and empty ones dropped; null when it climbs with `..`. */
function segmentsOf(path: string): string[] | null {
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  return segments.includes('..') ? null : segments;
}

/** A drive letter compares in either case. */
const sameSegment = (a: string, b: string, i: number) => a === b || (i === 0 && /^[a-z]:$/i.test(a) && a.toLowerCase() === b.toLowerCase());

/** The path of `absolute` below one of `roots`, or null when it is under none. */
function underRoot(absolute: string, roots: readonly string[]): string | null {
  const path = segmentsOf(absolute);
  if (!path) return null;
  for (const root of roots) {
    const base = segmentsOf(root);
    if (!base || path.length <= base.length) continue;
    if (base.every((segment, i) => sameSegment(segment, path[i], i))) return path.slice(base.length).join('/');
  }
  return null;
}

/** A relative reference's text, each `%xx` decoded; null when an escape is malformed. */
function decoded(uri: string): string | null {
  try {
    return decodeURIComponent(uri);
  } catch {
    return null;
  }
}

/**
 * The prefix the base `id` stands for, relative to the repository: empty for a base with an absolute URI
 * (the tool's root) or one the log does not define (such as %SRCROOT% alone). Null when the chain is
 * malformed or too deep.
 */
function basePrefix(id: unknown, bases: Bases, depth = 0): string | null {
  if (typeof id !== 'string' || depth > 8) return depth > 8 ? null : '';
  const base = bases[id];
  if (!isObject(base) || typeof base.uri !== 'string') return '';
  if (SCHEME.test(base.uri) || absolutePathOf(base.uri) !== null) return '';
  const parent = basePrefix(base.uriBaseId, bases, depth + 1);
  const own = decoded(base.uri);
  if (parent === null || own === null) return null;
  return `${parent}${own.replace(/\\/g, '/').replace(/\/?$/, '/')}`;
}

/** A repository path from a relative reference: forward slashes, no `.` or empty segments; refused when it climbs or holds control characters. */
function repositoryRelative(path: string): PathReading {
  if (/[\u0000-\u001f\u007f]/.test(path)) return { refused: 'the path holds control characters' };
  const segments = path.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return { refused: 'the path leaves the repository (..)' };
  const joined = segments.join('/');
  if (!joined) return { refused: 'the location names no file' };
  if (joined.length > MAX_PATH) return { refused: `the path is longer than ${MAX_PATH} characters` };
  return { path: joined };
}

/**
 * The repository path of a SARIF artifactLocation (see the top of this file). `roots` are the absolute
 * paths absolute locations may lie under.
 */
export function repositoryPath(location: unknown, bases: Bases, roots: readonly string[]): PathReading {
  if (!isObject(location) || typeof location.uri !== 'string' || !location.uri.trim()) return { refused: 'the location names no file' };
  const uri = location.uri.trim();
  if (uri.length > 4 * MAX_PATH) return { refused: `the path is longer than ${MAX_PATH} characters` };
  const scheme = SCHEME.exec(uri)?.[1]?.toLowerCase();
  if (scheme && scheme !== 'file' && !WINDOWS_ABSOLUTE.test(uri)) return { refused: `a ${scheme}: URI is not a file of the repository` };
  const absolute = absolutePathOf(uri);
  if (absolute !== null) {
    const below = underRoot(absolute, roots);
    return below === null ? { refused: 'an absolute path outside the repository' } : repositoryRelative(below);
  }
  if (scheme) return { refused: 'a malformed file: URI' };
  const relative = decoded(uri);
  if (relative === null) return { refused: 'a malformed URI escape' };
  const prefix = basePrefix(location.uriBaseId, bases);
  if (prefix === null) return { refused: 'its uriBaseId cannot be resolved' };
  return repositoryRelative(prefix + relative);
}

/** The absolute roots a log names: its absolute `originalUriBaseIds` entries and invocations' working directories. */
export function rootsOf(run: Record<string, unknown>): string[] {
  const roots: string[] = [];
  const bases = isObject(run.originalUriBaseIds) ? run.originalUriBaseIds : {};
  for (const base of Object.values(bases)) {
    if (isObject(base) && typeof base.uri === 'string') roots.push(absolutePathOf(base.uri) ?? '');
  }
  for (const invocation of Array.isArray(run.invocations) ? run.invocations : []) {
    const directory = isObject(invocation) && isObject(invocation.workingDirectory) ? invocation.workingDirectory.uri : undefined;
    if (typeof directory === 'string') roots.push(absolutePathOf(directory) ?? '');
  }
  return roots.filter((root) => root !== '' && segmentsOf(root)?.length);
}

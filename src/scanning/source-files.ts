import ignore, { type Ignore } from 'ignore';
import { isLockfileName } from '../inventory/lockfiles.ts';
import { looksBinary, PathRefused, readTreeBytes, type CheckedFolders, readTreeText, walkTree as walkWorkTree } from '../scm/work-tree.ts';

const VENDORED_DIRS = new Set([
  '.git', '.hg', '.svn', 'node_modules', 'bower_components', 'jspm_packages', 'vendor', 'third_party', 'third-party',
  '__pycache__', '.venv', 'venv', 'site-packages', '.tox', '.mypy_cache', 'Pods', 'Carthage', '.gradle', '.terraform',
]);

const BINARY_EXTENSIONS = new Set(
  ('png jpg jpeg gif bmp ico webp tiff psd pdf zip gz tgz bz2 xz 7z rar jar war ear class so dylib dll exe bin o a lib ' +
    'woff woff2 ttf otf eot mp3 mp4 m4a wav ogg flac avi mov mkv webm wasm pyc pyo db sqlite sqlite3 dat iso dmg deb rpm ' +
    'svgz heic')
    .split(' '),
);

/** Test fixture folders hold deliberately fake credentials. */
const FIXTURE_DIR = /(?:^|\/)(?:__fixtures__|fixtures|testdata|test-fixtures)\//i;

/** Test code: it does not run in production, so findings there are noise for application scans. */
const TEST_PATH = /(?:^|\/)(?:tests?|__tests__|spec|specs)\/|(?:^|\/)(?:test_[^/]*|[^/]*_test|conftest)\.py$|\.(?:test|spec)\.[cm]?[jt]sx?$/i;

export function isTestPath(relativePath: string): boolean {
  return TEST_PATH.test(relativePath);
}

export const MAX_FILE_BYTES = 2 * 1024 * 1024;

/** Why a path is not scanned, or undefined when it is. */
export function skipReason(relativePath: string): string | undefined {
  const parts = relativePath.split('/');
  if (parts.slice(0, -1).some((p) => VENDORED_DIRS.has(p))) return 'vendored';
  const base = parts.at(-1) ?? '';
  if (isLockfileName(base)) return 'lockfile';
  if (/\.min\.(?:js|css)$|\.map$/.test(base)) return 'minified';
  const ext = base.includes('.') ? base.split('.').pop()!.toLowerCase() : '';
  if (BINARY_EXTENSIONS.has(ext)) return 'binary';
  if (isFixturePath(relativePath)) return 'fixture';
  return undefined;
}

export { looksBinary, type CheckedFolders };

export type SourceText = { text: string } | { skipped: 'empty' | 'too large' | 'binary' | 'not a regular file'; size: number };

/**
 * A file's text by repository path, unless it is empty, larger than `maxBytes` (checked before reading),
 * binary, or not a regular file reached without a symbolic link (src/scm/work-tree.ts).
 */
export async function readSourceText(dir: string, relative: string, maxBytes = MAX_FILE_BYTES, folders?: CheckedFolders): Promise<SourceText> {
  const read = await readTreeBytes(dir, relative, maxBytes, folders).catch((err: unknown) => {
    if (err instanceof PathRefused) return null;
    throw err;
  });
  if (!read) return { skipped: 'not a regular file', size: 0 };
  const { size, bytes } = read;
  if (size === 0) return { skipped: 'empty', size };
  if (!bytes) return { skipped: 'too large', size };
  if (looksBinary(bytes)) return { skipped: 'binary', size };
  return { text: bytes.toString('utf8') };
}

/**
 * Whether the repository's ignore rules leave `file` out. A path they cannot judge (`../x`, `/x`: no file of
 * a checkout, but a hostile history can name one) is not left out, so what it holds is still read.
 */
export function isIgnoredPath(ignored: Ignore, file: string): boolean {
  return ignore.isPathValid(file) && ignored.ignores(file);
}

/** The repository's `.bulwarkignore` (gitignore syntax), if any. */
export async function loadIgnore(dir: string): Promise<Ignore> {
  return ignore().add((await readTreeText(dir, '.bulwarkignore', MAX_FILE_BYTES)) ?? '');
}

/** Every scannable file below `dir`, as paths relative to it with forward slashes. */
export function walkFiles(dir: string, ignored: Ignore): AsyncGenerator<string> {
  return walkTree(dir, ignored, (child) => !skipReason(child));
}

/** Every scannable file below `dir`, listed before any is read so that progress can show the total. */
export async function listFiles(dir: string, ignored: Ignore): Promise<string[]> {
  const files: string[] = [];
  for await (const file of walkFiles(dir, ignored)) files.push(file);
  return files;
}

/**
 * Every regular file below `dir` that `accept` takes, outside vendored folders and what `.bulwarkignore`
 * names; symbolic links are neither listed nor followed.
 */
export async function* walkTree(dir: string, ignored: Ignore, accept: (relativePath: string) => boolean): AsyncGenerator<string> {
  const enter = (rel: string, name: string) => !VENDORED_DIRS.has(name) && !ignored.ignores(`${rel}/`);
  for await (const entry of walkWorkTree(dir, '', { enter })) {
    if (entry.kind === 'file' && accept(entry.rel) && !ignored.ignores(entry.rel)) yield entry.rel;
  }
}

export function isFixturePath(relativePath: string): boolean {
  return FIXTURE_DIR.test(relativePath);
}

import fs from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isLockfileName } from '../sbom/lockfiles.ts';

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

export function looksBinary(buffer: Buffer): boolean {
  return buffer.subarray(0, 8000).includes(0);
}

export type SourceText = { text: string } | { skipped: 'empty' | 'too large' | 'binary'; size: number };

/** A file's text, unless it is empty, larger than `maxBytes` (checked before reading) or binary. */
export async function readSourceText(absolute: string, maxBytes = MAX_FILE_BYTES): Promise<SourceText> {
  const { size } = await fs.stat(absolute);
  if (size === 0) return { skipped: 'empty', size };
  if (size > maxBytes) return { skipped: 'too large', size };
  const buffer = await fs.readFile(absolute);
  if (looksBinary(buffer)) return { skipped: 'binary', size };
  return { text: buffer.toString('utf8') };
}

/** The repository's `.bulwarkignore` (gitignore syntax), if any. */
export async function loadIgnore(dir: string): Promise<Ignore> {
  const matcher = ignore();
  try {
    matcher.add(await fs.readFile(path.join(dir, '.bulwarkignore'), 'utf8'));
  } catch {
    // no ignore file
  }
  return matcher;
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

/** Every file below `dir` that `accept` takes, outside vendored folders and what `.bulwarkignore` names. */
export async function* walkTree(dir: string, ignored: Ignore, accept: (relativePath: string) => boolean): AsyncGenerator<string> {
  const pending = [''];
  while (pending.length) {
    const relative = pending.pop()!;
    const entries = await fs.readdir(path.join(dir, relative), { withFileTypes: true });
    for (const entry of entries) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (VENDORED_DIRS.has(entry.name) || ignored.ignores(`${child}/`)) continue;
        pending.push(child);
      } else if (entry.isFile()) {
        if (accept(child) && !ignored.ignores(child)) yield child;
      }
    }
  }
}

export function isFixturePath(relativePath: string): boolean {
  return FIXTURE_DIR.test(relativePath);
}

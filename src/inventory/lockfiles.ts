// The base names of package managers' lockfiles: written by a tool, never by hand, so the secrets and SAST
// scanners skip them. Kept apart from the extractors that read them, so that telling a lockfile costs a
// scanner's threads no load of every format's parser.

/** Per extractor id, the lockfiles it reads. */
export const LOCKFILES = {
  'npm-lock': ['package-lock.json', 'npm-shrinkwrap.json'],
  'yarn-lock': ['yarn.lock'],
  'pnpm-lock': ['pnpm-lock.yaml'],
  'poetry-lock': ['poetry.lock'],
  'pipfile-lock': ['Pipfile.lock'],
  'uv-lock': ['uv.lock'],
  'pdm-lock': ['pdm.lock'],
  'cargo-lock': ['Cargo.lock'],
  'gradle-lockfile': ['gradle.lockfile'],
  'gemfile-lock': ['Gemfile.lock', 'gems.locked'],
  'composer-lock': ['composer.lock'],
  'nuget-lock': ['packages.lock.json'],
  'pubspec-lock': ['pubspec.lock'],
  'bun-lock': ['bun.lock'],
  'pylock': ['pylock.toml'],
  'mix-lock': ['mix.lock'],
  'swift-package-resolved': ['Package.resolved'],
  'podfile-lock': ['Podfile.lock'],
  'deno-lock': ['deno.lock'],
  'conan-lock': ['conan.lock'],
  'renv-lock': ['renv.lock'],
  'gopkg-lock': ['Gopkg.lock'],
} as const satisfies Record<string, readonly string[]>;

/** Lockfiles of package managers no extractor reads yet. */
const UNREAD_LOCKFILES: readonly string[] = ['bun.lockb', 'go.sum', 'flake.lock'];

const ALL = new Set<string>([...Object.values(LOCKFILES).flat(), ...UNREAD_LOCKFILES]);

/** Whether a file of this base name is a lockfile. */
export function isLockfileName(fileName: string): boolean {
  return ALL.has(fileName);
}

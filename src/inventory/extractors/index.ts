import { bunLockExtractor } from './bun-lock/bun-lock.ts';
import { cargoLockExtractor } from './cargo-lock/cargo-lock.ts';
import { composerLockExtractor } from './composer-lock/composer-lock.ts';
import { claims, type Extractor } from './extractor.ts';
import { gemfileLockExtractor } from './gemfile-lock/gemfile-lock.ts';
import { githubActionsExtractor } from './github-actions/github-actions.ts';
import { condaEnvironmentExtractor } from './conda-environment/conda-environment.ts';
import { mixLockExtractor } from './mix-lock/mix-lock.ts';
import { swiftPackageResolvedExtractor } from './swift-package-resolved/swift-package-resolved.ts';
import { podfileLockExtractor } from './podfile-lock/podfile-lock.ts';
import { denoLockExtractor } from './deno-lock/deno-lock.ts';
import { conanLockExtractor } from './conan-lock/conan-lock.ts';
import { vcpkgManifestExtractor } from './vcpkg-manifest/vcpkg-manifest.ts';
import { gradleVersionCatalogExtractor } from './gradle-version-catalog/gradle-version-catalog.ts';
import { renvLockExtractor } from './renv-lock/renv-lock.ts';
import { nugetPackagesConfigExtractor } from './nuget-packages-config/nuget-packages-config.ts';
import { gopkgLockExtractor } from './gopkg-lock/gopkg-lock.ts';
import { goModExtractor } from './go-mod/go-mod.ts';
import { gradleLockfileExtractor } from './gradle-lockfile/gradle-lockfile.ts';
import { mavenPomExtractor } from './maven-pom/maven-pom.ts';
import { npmLockExtractor } from './npm-lock/npm-lock.ts';
import { nugetLockExtractor } from './nuget-lock/nuget-lock.ts';
import { pdmLockExtractor } from './pdm-lock/pdm-lock.ts';
import { pipfileLockExtractor } from './pipfile-lock/pipfile-lock.ts';
import { pnpmLockExtractor } from './pnpm-lock/pnpm-lock.ts';
import { poetryLockExtractor } from './poetry-lock/poetry-lock.ts';
import { pylockExtractor } from './pylock/pylock.ts';
import { pubspecLockExtractor } from './pubspec-lock/pubspec-lock.ts';
import { requirementsExtractor } from './python-requirements/python-requirements.ts';
import { uvLockExtractor } from './uv-lock/uv-lock.ts';
import { yarnLockExtractor } from './yarn-lock/yarn-lock.ts';

/** Every format the inventory reads, one folder each; the first that claims a file name extracts it. */
export const EXTRACTORS: readonly Extractor[] = [
  npmLockExtractor,
  yarnLockExtractor,
  pnpmLockExtractor,
  requirementsExtractor,
  poetryLockExtractor,
  pipfileLockExtractor,
  uvLockExtractor,
  pdmLockExtractor,
  goModExtractor,
  cargoLockExtractor,
  mavenPomExtractor,
  gradleLockfileExtractor,
  gemfileLockExtractor,
  composerLockExtractor,
  nugetLockExtractor,
  pubspecLockExtractor,
  githubActionsExtractor,
  bunLockExtractor,
  pylockExtractor,
  condaEnvironmentExtractor,
  mixLockExtractor,
  swiftPackageResolvedExtractor,
  podfileLockExtractor,
  denoLockExtractor,
  conanLockExtractor,
  vcpkgManifestExtractor,
  gradleVersionCatalogExtractor,
  renvLockExtractor,
  nugetPackagesConfigExtractor,
  gopkgLockExtractor,
];

/** The extractor for a file, given its repository-relative path or its base name, if any reads it. */
export function extractorFor(fileName: string, extractors: readonly Extractor[] = EXTRACTORS): Extractor | undefined {
  return extractors.find((extractor) => claims(extractor, fileName));
}

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { skipReason } from '../../scanning/source-files.ts';
import { EXTRACTORS, extractorFor } from './index.ts';
import { claims, type Extractor } from './extractor.ts';
import { pubspecLockExtractor } from './pubspec-lock/pubspec-lock.ts';
import { gemfileLockExtractor } from './gemfile-lock/gemfile-lock.ts';
import { cargoLockExtractor } from './cargo-lock/cargo-lock.ts';
import { composerLockExtractor } from './composer-lock/composer-lock.ts';
import { gradleLockfileExtractor } from './gradle-lockfile/gradle-lockfile.ts';
import { mavenPomExtractor } from './maven-pom/maven-pom.ts';
import { goModExtractor } from './go-mod/go-mod.ts';
import { nugetLockExtractor } from './nuget-lock/nuget-lock.ts';
import { githubActionsExtractor } from './github-actions/github-actions.ts';
import { bunLockExtractor } from './bun-lock/bun-lock.ts';
import { pylockExtractor } from './pylock/pylock.ts';
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

describe('file names', () => {
  const cases: [Extractor, string[], string[]][] = [
    [goModExtractor, ['go.mod'], ['go.sum', 'go.work']],
    [cargoLockExtractor, ['Cargo.lock'], ['Cargo.toml', 'cargo.lock']],
    [mavenPomExtractor, ['pom.xml'], ['build.gradle', 'settings.xml']],
    [gradleLockfileExtractor, ['gradle.lockfile'], ['build.gradle.kts', 'gradle.properties']],
    [gemfileLockExtractor, ['Gemfile.lock', 'gems.locked'], ['Gemfile', 'Podfile.lock']],
    [composerLockExtractor, ['composer.lock'], ['composer.json']],
    [nugetLockExtractor, ['packages.lock.json'], ['packages.config', 'package-lock.json']],
    [pubspecLockExtractor, ['pubspec.lock'], ['pubspec.yaml']],
    [githubActionsExtractor, ['.github/workflows/ci.yml', 'action.yml', 'action.yaml'], ['ci.yml', '.github/dependabot.yml']],
    [bunLockExtractor, ['bun.lock'], ['bun.lockb']],
    [pylockExtractor, ['pylock.toml', 'pylock.dev.toml'], ['pyproject.toml']],
    [condaEnvironmentExtractor, ['environment.yml', 'environment.yaml'], ['conda-lock.yml']],
    [mixLockExtractor, ['mix.lock'], ['mix.exs']],
    [swiftPackageResolvedExtractor, ['Package.resolved'], ['Package.swift']],
    [podfileLockExtractor, ['Podfile.lock'], ['Podfile', 'Gemfile.lock']],
    [denoLockExtractor, ['deno.lock'], ['deno.json']],
    [conanLockExtractor, ['conan.lock'], ['conanfile.txt', 'conanfile.py']],
    [vcpkgManifestExtractor, ['vcpkg.json'], ['vcpkg-configuration.json']],
    [gradleVersionCatalogExtractor, ['libs.versions.toml'], ['gradle.properties', 'build.gradle.kts']],
    [renvLockExtractor, ['renv.lock'], ['DESCRIPTION']],
    [nugetPackagesConfigExtractor, ['packages.config'], ['packages.lock.json', 'app.config']],
    [gopkgLockExtractor, ['Gopkg.lock'], ['Gopkg.toml', 'go.mod']],
  ];
  for (const [extractor, names, others] of cases) {
    test(`${extractor.id} reads ${names.join(', ')} and nothing else`, () => {
      for (const name of names) assert.equal(claims(extractor, name), true, name);
      for (const name of others) assert.equal(claims(extractor, name), false, name);
    });
  }
});

describe('the registry', () => {
  test('every extractor has its own id and claims file names no other extractor claims', () => {
    assert.equal(new Set(EXTRACTORS.map((e) => e.id)).size, EXTRACTORS.length);
    for (const extractor of EXTRACTORS) {
      for (const name of extractor.fileNames.filter((n) => typeof n === 'string')) assert.equal(extractorFor(name), extractor, name);
    }
    assert.equal(extractorFor('requirements-dev.txt')?.id, 'pip-requirements');
    assert.equal(extractorFor('README.md'), undefined);
    // Told by folder: a workflow's name is its own, and the same name elsewhere is no workflow.
    assert.equal(extractorFor('.github/workflows/deploy.yaml')?.id, 'github-actions');
    assert.equal(extractorFor('deploy/deploy.yaml'), undefined);
  });

  test('at least 30 formats', () => {
    assert.ok(EXTRACTORS.length >= 30, `${EXTRACTORS.length} extractors`);
  });

  test('the scanners skip every lockfile an extractor reads, and still read hand-written manifests', () => {
    const lockfiles = EXTRACTORS.filter((e) => e.lockfile).flatMap((e) => e.fileNames.filter((n) => typeof n === 'string'));
    assert.ok(lockfiles.includes('pdm.lock') && lockfiles.includes('gems.locked'));
    for (const name of lockfiles) assert.equal(skipReason(`app/${name}`), 'lockfile', name);
    for (const name of ['go.sum', 'bun.lockb', 'mix.lock', 'flake.lock']) assert.equal(skipReason(name), 'lockfile', name);
    for (const name of ['go.mod', 'pom.xml', 'requirements.txt', 'requirements-dev.txt', 'package.json', 'pyproject.toml']) {
      assert.equal(skipReason(`app/${name}`), undefined, `${name} may hold credentials (index URLs, repositories) and is scanned`);
    }
  });
});

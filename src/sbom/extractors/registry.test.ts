import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { skipReason } from '../../engines/source-files.ts';
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

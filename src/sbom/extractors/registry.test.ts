import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Extractor } from './extractor.ts';
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
      for (const name of names) assert.equal(extractor.matches(name), true, name);
      for (const name of others) assert.equal(extractor.matches(name), false, name);
    });
  }
});

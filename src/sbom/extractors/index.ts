import { cargoLockExtractor } from './cargo-lock.ts';
import { composerLockExtractor } from './composer-lock.ts';
import type { Extractor } from './extractor.ts';
import { gemfileLockExtractor } from './gemfile-lock.ts';
import { goModExtractor } from './go-mod.ts';
import { gradleLockfileExtractor } from './gradle-lockfile.ts';
import { mavenPomExtractor } from './maven-pom.ts';
import { npmLockExtractor } from './npm-lock.ts';
import { nugetLockExtractor } from './nuget-lock.ts';
import { pdmLockExtractor } from './pdm-lock.ts';
import { pipfileLockExtractor } from './pipfile-lock.ts';
import { pnpmLockExtractor } from './pnpm-lock.ts';
import { poetryLockExtractor } from './poetry-lock.ts';
import { pubspecLockExtractor } from './pubspec-lock.ts';
import { requirementsExtractor } from './python-requirements.ts';
import { uvLockExtractor } from './uv-lock.ts';
import { yarnLockExtractor } from './yarn-lock.ts';

/** Every format the inventory reads; the first whose `matches` takes a file name extracts it. */
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
];

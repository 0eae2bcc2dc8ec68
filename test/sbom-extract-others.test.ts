import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import type { Component } from '../src/sbom/component.ts';
import { cargoLockExtractor } from '../src/sbom/extractors/cargo-lock.ts';
import { composerLockExtractor } from '../src/sbom/extractors/composer-lock.ts';
import { ExtractError, type ExtractContext, type Extractor } from '../src/sbom/extractors/extractor.ts';
import { gemfileLockExtractor } from '../src/sbom/extractors/gemfile-lock.ts';
import { goModExtractor } from '../src/sbom/extractors/go-mod.ts';
import { gradleLockfileExtractor } from '../src/sbom/extractors/gradle-lockfile.ts';
import { mavenPomExtractor } from '../src/sbom/extractors/maven-pom.ts';
import { nugetLockExtractor } from '../src/sbom/extractors/nuget-lock.ts';
import { pubspecLockExtractor } from '../src/sbom/extractors/pubspec-lock.ts';

// Extractors for Go, Rust, Java, Ruby, PHP, .NET and Dart manifests, each run on a small realistic
// fixture; every test states the full list of components it expects.

const FIXTURES = new URL('./fixtures/sbom/', import.meta.url);

function fixture(relativePath: string): string {
  return fs.readFileSync(new URL(relativePath, FIXTURES), 'utf8');
}

/** A tree held in memory: repository-relative path → file text. */
function treeContext(files: Record<string, string> = {}): ExtractContext {
  return { readFile: async (path) => files[path] ?? null };
}

type Summary = Pick<Component, 'name' | 'version' | 'direct' | 'development'>;

/** Name, version, direct and (where the format says) development, sorted for exact comparison. */
function summarize(components: Component[]): Summary[] {
  return components
    .map(({ name, version, direct, development }) => ({ name, version, direct, ...(development === undefined ? {} : { development }) }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

async function extract(extractor: Extractor, path: string, text: string, context = treeContext()): Promise<Component[]> {
  const components = await extractor.extract({ path, text }, context);
  for (const c of components) {
    assert.equal(c.sourceFile, path, `${c.name}: sourceFile`);
    assert.equal(c.ecosystem, extractor.ecosystem, `${c.name}: ecosystem`);
  }
  return components;
}

function purlOf(components: Component[], name: string, version: string): string | undefined {
  return components.find((c) => c.name === name && c.version === version)?.purl;
}

async function assertRejects(extractor: Extractor, path: string, text: string, reason: RegExp): Promise<void> {
  await assert.rejects(
    async () => extractor.extract({ path, text }, treeContext()),
    (error: unknown) => error instanceof ExtractError && error.message.startsWith(`${path}: `) && reason.test(error.message),
  );
}

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

describe('go.mod', () => {
  test('requirements with indirect marks, replacements applied and local replacements dropped', async () => {
    const components = await extract(goModExtractor, 'svc/go.mod', fixture('go-mod/go.mod'));
    assert.deepEqual(summarize(components), [
      { name: 'github.com/acme-forks/legacy', version: 'v0.2.1-patched', direct: true },
      { name: 'github.com/bytedance/sonic', version: 'v1.9.1', direct: false },
      { name: 'github.com/docker/docker', version: 'v24.0.6+incompatible', direct: true },
      { name: 'github.com/gabriel-vasile/mimetype', version: 'v1.4.2', direct: false },
      { name: 'github.com/gin-gonic/gin', version: 'v1.9.0', direct: true },
      { name: 'github.com/golang-jwt/jwt/v5', version: 'v5.0.0', direct: true },
      { name: 'github.com/google/uuid', version: 'v1.3.1', direct: true },
      { name: 'github.com/lib/pq', version: 'v1.10.7', direct: true },
      { name: 'github.com/pkg/errors', version: 'v0.9.1', direct: false },
      { name: 'github.com/spf13/cobra', version: 'v1.7.0', direct: true },
      { name: 'golang.org/x/crypto', version: 'v0.14.0', direct: true },
      { name: 'golang.org/x/net', version: 'v0.0.0-20230101000000-abcdef123456', direct: false },
    ]);
    assert.equal(purlOf(components, 'github.com/gin-gonic/gin', 'v1.9.0'), 'pkg:golang/github.com/gin-gonic/gin@v1.9.0');
  });

  test('a module without requirements has no components', async () => {
    const text = 'module example.com/tiny\n\ngo 1.22.0\n\ntoolchain go1.22.4\n\nrequire ()\n';
    assert.deepEqual(await extract(goModExtractor, 'go.mod', text), []);
  });

  test('malformed files are rejected', async () => {
    await assertRejects(goModExtractor, 'go.mod', 'module example.com/x\n\nrequire (\n\tgithub.com/a/b v1.0.0\n', /unterminated require block/);
    await assertRejects(goModExtractor, 'go.mod', 'module example.com/x\nrequire github.com/a/b\n', /line 2: usage: require/);
    await assertRejects(goModExtractor, 'go.mod', 'module example.com/x\nreplace github.com/a/b => github.com/c/d\n', /line 2: .*needs a version/);
    await assertRejects(goModExtractor, 'go.mod', '{"module": "example.com/x"}\n', /line 1: unknown directive/);
    await assertRejects(goModExtractor, 'go.mod', 'go 1.21\nrequire github.com/a/b v1.0.0\n', /no module directive/);
  });
});

describe('Cargo.lock', () => {
  test('registry and git packages; direct ones are those the workspace members depend on', async () => {
    const components = await extract(cargoLockExtractor, 'Cargo.lock', fixture('cargo-lock/Cargo.lock'));
    assert.deepEqual(summarize(components), [
      { name: 'clap', version: '4.4.6', direct: true },
      { name: 'clap_builder', version: '4.4.6', direct: false },
      { name: 'hyper', version: '1.0.0-rc.4', direct: true },
      { name: 'legacy-config', version: '0.3.0', direct: true },
      { name: 'pin-project-lite', version: '0.2.13', direct: false },
      { name: 'serde', version: '0.9.15', direct: false },
      { name: 'serde', version: '1.0.188', direct: true },
      { name: 'tokio', version: '1.32.0', direct: true },
    ]);
    assert.equal(purlOf(components, 'serde', '1.0.188'), 'pkg:cargo/serde@1.0.188');
  });

  test('version 1 lockfiles, with the root crate in [root] and sources in dependency entries', async () => {
    const components = await extract(cargoLockExtractor, 'legacy/Cargo.lock', fixture('cargo-lock/Cargo.v1.lock'));
    assert.deepEqual(summarize(components), [
      { name: 'itoa', version: '0.4.8', direct: false },
      { name: 'serde', version: '1.0.130', direct: false },
      { name: 'serde_json', version: '1.0.68', direct: true },
    ]);
  });

  test('malformed files are rejected', async () => {
    await assertRejects(cargoLockExtractor, 'Cargo.lock', '[[package]]\nname = "serde"\nversion = ', /not valid TOML/);
    await assertRejects(cargoLockExtractor, 'Cargo.lock', 'version = 3\n\n[[package]]\nname = "serde"\n', /lacks a name or version/);
    await assertRejects(cargoLockExtractor, 'Cargo.lock', 'version = 3\n', /no \[\[package\]\] entries/);
  });
});

describe('pom.xml', () => {
  const parentPom = fixture('maven-pom/pom.xml');
  const servicePom = fixture('maven-pom/service/pom.xml');

  test('dependencies resolved through properties and the parent pom found in the tree', async () => {
    const tree = treeContext({ 'pom.xml': parentPom, 'service/pom.xml': servicePom });
    const components = await extract(mavenPomExtractor, 'service/pom.xml', servicePom, tree);
    assert.deepEqual(summarize(components), [
      { name: 'com.acme:acme-common', version: '2.3.0', direct: true, development: false },
      { name: 'com.acme:acme-model', version: '2.3.0', direct: true, development: false },
      { name: 'com.fasterxml.jackson.core:jackson-databind', version: '2.15.2', direct: true, development: false },
      { name: 'com.google.guava:guava', version: '32.1.2-jre', direct: true, development: false },
      { name: 'com.sun:tools', version: '1.8', direct: true, development: false },
      { name: 'io.netty:netty-handler', version: '4.1.97.Final', direct: true, development: false },
      { name: 'javax.servlet:javax.servlet-api', version: '4.0.1', direct: true, development: false },
      { name: 'org.apache.logging.log4j:log4j-core', version: '2.14.1', direct: true, development: false },
      { name: 'org.junit.jupiter:junit-jupiter', version: '5.10.0', direct: true, development: true },
      { name: 'org.mockito:mockito-core', version: '5.5.0', direct: true, development: true },
      { name: 'org.yaml:snakeyaml', version: '1.33', direct: true, development: false },
    ]);
    assert.equal(
      purlOf(components, 'org.apache.logging.log4j:log4j-core', '2.14.1'),
      'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
    );
  });

  test('without the parent pom, what only it supplies is left out', async () => {
    const components = await extract(mavenPomExtractor, 'service/pom.xml', servicePom);
    assert.deepEqual(summarize(components), [
      { name: 'com.acme:acme-common', version: '2.3.0', direct: true, development: false },
      { name: 'com.acme:acme-model', version: '2.3.0', direct: true, development: false },
      { name: 'com.sun:tools', version: '1.8', direct: true, development: false },
      { name: 'io.netty:netty-handler', version: '4.1.97.Final', direct: true, development: false },
      { name: 'javax.servlet:javax.servlet-api', version: '4.0.1', direct: true, development: false },
      { name: 'org.apache.logging.log4j:log4j-core', version: '2.14.1', direct: true, development: false },
      { name: 'org.mockito:mockito-core', version: '5.5.0', direct: true, development: true },
      { name: 'org.yaml:snakeyaml', version: '1.33', direct: true, development: false },
    ]);
  });

  test('a pom at the relative path that is not the named parent is not inherited from', async () => {
    const otherPom = parentPom.replace('<artifactId>acme-parent</artifactId>', '<artifactId>something-else</artifactId>');
    const tree = treeContext({ 'pom.xml': otherPom });
    const withOther = await extract(mavenPomExtractor, 'service/pom.xml', servicePom, tree);
    const alone = await extract(mavenPomExtractor, 'service/pom.xml', servicePom);
    assert.deepEqual(summarize(withOther), summarize(alone));
  });

  test('a parent pom lists only its own dependencies, not its managed ones', async () => {
    const components = await extract(mavenPomExtractor, 'pom.xml', parentPom);
    assert.deepEqual(summarize(components), [{ name: 'org.slf4j:slf4j-api', version: '2.0.9', direct: true, development: false }]);
  });

  test('malformed files are rejected', async () => {
    await assertRejects(mavenPomExtractor, 'pom.xml', '<project><dependencies></project>', /not well-formed XML/);
    await assertRejects(mavenPomExtractor, 'pom.xml', '<settings><mirrors/></settings>', /no <project> root element/);
  });
});

describe('gradle.lockfile', () => {
  test('locked modules, development when only test configurations use them', async () => {
    const components = await extract(gradleLockfileExtractor, 'app/gradle.lockfile', fixture('gradle-lockfile/gradle.lockfile'));
    assert.deepEqual(summarize(components), [
      { name: 'com.fasterxml.jackson.core:jackson-databind', version: '2.15.2', direct: null, development: false },
      { name: 'org.apache.logging.log4j:log4j-api', version: '2.14.1', direct: null, development: false },
      { name: 'org.apache.logging.log4j:log4j-core', version: '2.14.1', direct: null, development: false },
      { name: 'org.junit.jupiter:junit-jupiter-api', version: '5.10.0', direct: null, development: true },
      { name: 'org.mockito:mockito-core', version: '5.5.0', direct: null, development: true },
      { name: 'org.opentest4j:opentest4j', version: '1.3.0', direct: null, development: true },
      { name: 'org.projectlombok:lombok', version: '1.18.30', direct: null, development: false },
    ]);
    assert.equal(
      purlOf(components, 'org.apache.logging.log4j:log4j-core', '2.14.1'),
      'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
    );
  });

  test('malformed files are rejected', async () => {
    await assertRejects(gradleLockfileExtractor, 'gradle.lockfile', '# header\norg.slf4j:slf4j-api=runtimeClasspath\n', /line 2/);
  });
});

describe('Gemfile.lock', () => {
  test('gems from GEM, GIT and PATH sources, platform variants merged, direct from DEPENDENCIES', async () => {
    const components = await extract(gemfileLockExtractor, 'Gemfile.lock', fixture('gemfile-lock/Gemfile.lock'));
    assert.deepEqual(summarize(components), [
      { name: 'billing', version: '0.1.0', direct: true },
      { name: 'crass', version: '1.0.6', direct: false },
      { name: 'loofah', version: '2.21.4', direct: false },
      { name: 'nio4r', version: '2.5.9', direct: false },
      { name: 'nokogiri', version: '1.15.4', direct: true },
      { name: 'pg', version: '1.5.4', direct: true },
      { name: 'puma', version: '6.4.0', direct: true },
      { name: 'racc', version: '1.7.1', direct: false },
      { name: 'rack', version: '2.2.8', direct: false },
      { name: 'rails-html-sanitizer', version: '1.6.0', direct: true },
      { name: 'rspec-core', version: '3.12.2', direct: true },
      { name: 'rspec-support', version: '3.12.1', direct: false },
    ]);
    assert.equal(purlOf(components, 'nokogiri', '1.15.4'), 'pkg:gem/nokogiri@1.15.4');
  });

  test('CRLF line endings read the same', async () => {
    const text = fixture('gemfile-lock/Gemfile.lock');
    const lf = await extract(gemfileLockExtractor, 'Gemfile.lock', text);
    const crlf = await extract(gemfileLockExtractor, 'Gemfile.lock', text.replaceAll('\n', '\r\n'));
    assert.deepEqual(summarize(crlf), summarize(lf));
  });

  test('malformed files are rejected', async () => {
    await assertRejects(gemfileLockExtractor, 'Gemfile.lock', '{"GEM": []}\n', /none of the sections/);
    await assertRejects(gemfileLockExtractor, 'Gemfile.lock', 'GEM\n  remote: https://rubygems.org/\n  specs:\n    rack\n', /line 4/);
  });
});

describe('composer.lock', () => {
  const lock = fixture('composer-lock/composer.lock');

  test('packages and dev packages, direct from the sibling composer.json', async () => {
    const tree = treeContext({ 'web/composer.json': fixture('composer-lock/composer.json') });
    const components = await extract(composerLockExtractor, 'web/composer.lock', lock, tree);
    assert.deepEqual(summarize(components), [
      { name: 'acme/internal-tools', version: 'dev-main', direct: true, development: false },
      { name: 'monolog/monolog', version: '2.9.1', direct: true, development: false },
      { name: 'phpunit/phpunit', version: '9.6.13', direct: true, development: true },
      { name: 'psr/log', version: '1.1.4', direct: false, development: false },
      { name: 'sebastian/diff', version: '4.0.5', direct: false, development: true },
      { name: 'symfony/http-foundation', version: 'v5.4.0', direct: false, development: false },
      { name: 'symfony/http-kernel', version: 'v5.4.0', direct: true, development: false },
    ]);
    assert.equal(purlOf(components, 'symfony/http-kernel', 'v5.4.0'), 'pkg:composer/symfony/http-kernel@v5.4.0');
  });

  test('without composer.json, or with an unreadable one, direct is unknown', async () => {
    for (const tree of [treeContext(), treeContext({ 'composer.json': '{ not json' })]) {
      const components = await extract(composerLockExtractor, 'composer.lock', lock, tree);
      assert.equal(components.length, 7);
      assert.deepEqual([...new Set(components.map((c) => c.direct))], [null]);
    }
  });

  test('malformed files are rejected', async () => {
    await assertRejects(composerLockExtractor, 'composer.lock', '{"packages": [', /not valid JSON/);
    await assertRejects(composerLockExtractor, 'composer.lock', '{"packages": {"a/b": "1.0"}}', /"packages" is not an array/);
    await assertRejects(composerLockExtractor, 'composer.lock', '{"packages": [{"name": "a/b"}]}', /packages\[0\] lacks a name or version/);
  });
});

describe('packages.lock.json', () => {
  test('resolved packages of every framework, merged; project references left out', async () => {
    const components = await extract(nugetLockExtractor, 'src/Api/packages.lock.json', fixture('nuget-lock/packages.lock.json'));
    assert.deepEqual(summarize(components), [
      { name: 'Microsoft.Extensions.Logging.Abstractions', version: '8.0.0', direct: true },
      { name: 'Newtonsoft.Json', version: '13.0.1', direct: true },
      { name: 'Serilog', version: '2.12.0', direct: false },
      { name: 'Serilog', version: '3.1.1', direct: false },
      { name: 'Serilog.AspNetCore', version: '7.0.0', direct: true },
      { name: 'Serilog.AspNetCore', version: '8.0.0', direct: true },
      { name: 'System.Text.Encodings.Web', version: '8.0.0', direct: false },
    ]);
    assert.equal(purlOf(components, 'Newtonsoft.Json', '13.0.1'), 'pkg:nuget/Newtonsoft.Json@13.0.1');
  });

  test('malformed files are rejected', async () => {
    await assertRejects(nugetLockExtractor, 'packages.lock.json', '{"version": 1, "dependencies": ', /not valid JSON/);
    await assertRejects(nugetLockExtractor, 'packages.lock.json', '{"version": 1}', /no "dependencies" object/);
    await assertRejects(
      nugetLockExtractor,
      'packages.lock.json',
      '{"version": 1, "dependencies": {"net8.0": {"Serilog": {"type": "Direct"}}}}',
      /net8\.0: Serilog has no resolved version/,
    );
  });
});

describe('pubspec.lock', () => {
  test('hosted and git packages by dependency kind; SDK and path packages left out', async () => {
    const components = await extract(pubspecLockExtractor, 'app/pubspec.lock', fixture('pubspec-lock/pubspec.lock'));
    assert.deepEqual(summarize(components), [
      { name: 'async', version: '2.11.0', direct: false },
      { name: 'build_runner', version: '2.4.6', direct: true, development: true },
      { name: 'http', version: '1.1.0', direct: true, development: false },
      { name: 'intl', version: '0.18.1', direct: true },
      { name: 'markdown_fork', version: '7.1.1', direct: true, development: false },
      { name: 'meta', version: '1.10.0', direct: false },
    ]);
    assert.equal(purlOf(components, 'http', '1.1.0'), 'pkg:pub/http@1.1.0');
  });

  test('an unquoted version stays as written', async () => {
    const text = 'packages:\n  meta:\n    dependency: transitive\n    source: hosted\n    version: 1.10\nsdks:\n  dart: ">=3.0.0 <4.0.0"\n';
    const components = await extract(pubspecLockExtractor, 'pubspec.lock', text);
    assert.deepEqual(summarize(components), [{ name: 'meta', version: '1.10', direct: false }]);
  });

  test('malformed files are rejected', async () => {
    await assertRejects(pubspecLockExtractor, 'pubspec.lock', 'packages:\n  http: [unclosed\n', /not valid YAML/);
    await assertRejects(pubspecLockExtractor, 'pubspec.lock', 'sdks:\n  dart: ">=3.0.0"\n', /no "packages" mapping/);
    await assertRejects(pubspecLockExtractor, 'pubspec.lock', 'packages:\n  http:\n    dependency: "direct main"\n', /http lacks a version/);
  });
});

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims } from '../extractor.ts';
import { assertRejects, extract, fixture } from '../testing.ts';
import { gradleVersionCatalogExtractor } from './gradle-version-catalog.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('Gradle version catalogs', () => {
  test('claims libs.versions.toml and other catalogs', () => {
    for (const name of ['libs.versions.toml', 'testLibs.versions.toml']) assert.ok(claims(gradleVersionCatalogExtractor, name), name);
    for (const name of ['gradle.properties', 'versions.toml.bak', 'pyproject.toml']) assert.ok(!claims(gradleVersionCatalogExtractor, name), name);
  });

  test('libraries as Maven coordinates, versions through refs and rich versions, unpinned ones noted', async () => {
    const file = 'gradle/libs.versions.toml';
    const components = await extract(gradleVersionCatalogExtractor, file, fixture(TESTDATA, file));
    assert.deepEqual(
      components.map((c) => [c.name, c.version, c.note === undefined ? '' : c.note.split(':')[0]]),
      [
        ['org.springframework.boot:spring-boot-starter-web', '3.2.2', ''],
        ['org.springframework.boot:spring-boot-dependencies', '3.2.2', ''],
        ['com.fasterxml.jackson.core:jackson-databind', '2.16.1', ''],
        ['com.google.guava:guava', '33.0.0-jre', ''],
        ['com.squareup.okhttp3:okhttp', '4.12.0', ''],
        ['org.apache.commons:commons-lang3', '3.14.0', ''],
        // A strict range with a preferred version: the preferred one.
        ['org.apache.logging.log4j:log4j-core', '2.22.1', ''],
        ['io.netty:netty-handler', '', 'unpinned (4.1.+)'],
        ['org.jetbrains.kotlin:kotlin-stdlib', '1.9.22', ''],
        ['org.junit.jupiter:junit-jupiter', '', 'no version in the catalog'],
        ['io.mockk:mockk', '', 'no version in the catalog'],
      ],
    );
    assert.ok(components.every((c) => c.direct === true));
    assert.equal(components[2]!.purl, 'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.16.1');
  });

  test('malformed catalogs', async () => {
    await assertRejects(gradleVersionCatalogExtractor, 'libs.versions.toml', '[libraries\n', /not valid TOML/);
    await assertRejects(gradleVersionCatalogExtractor, 'libs.versions.toml', '[libraries]\na = "justone"\n', /library a is not/);
    await assertRejects(gradleVersionCatalogExtractor, 'libs.versions.toml', '[libraries]\na = { version = "1" }\n', /library a has neither/);
  });
});

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fixture, summarize, extract, purlOf, assertRejects } from '../testing.ts';
import { gradleLockfileExtractor } from './gradle-lockfile.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('gradle.lockfile', () => {
  test('locked modules, development when only test configurations use them', async () => {
    const components = await extract(gradleLockfileExtractor, 'app/gradle.lockfile', fixture(TESTDATA, 'gradle.lockfile'));
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

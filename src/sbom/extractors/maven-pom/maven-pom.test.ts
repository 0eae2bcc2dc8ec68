import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fixture, treeContext, summarize, extract, purlOf, assertRejects } from '../testing.ts';
import { mavenPomExtractor } from './maven-pom.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('pom.xml', () => {
  const parentPom = fixture(TESTDATA, 'pom.xml');
  const servicePom = fixture(TESTDATA, 'service/pom.xml');

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

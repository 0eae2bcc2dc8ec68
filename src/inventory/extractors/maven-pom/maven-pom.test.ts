import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { Component } from '../../component.ts';
import { fixture, fixtureTree, treeContext, treeReader, summarize, extract, purlOf, assertRejects } from '../testing.ts';
import { mavenPomExtractor } from './maven-pom.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

/** The components listed without a version, with their notes. */
function unversioned(components: Component[]): Record<string, string | undefined> {
  return Object.fromEntries(components.filter((c) => !c.version).map((c) => [c.name, c.note]));
}

function firstParty(components: Component[]): string[] {
  return components.filter((c) => c.firstParty).map((c) => `${c.name}@${c.version}`).sort();
}

describe('pom.xml', () => {
  const parentPom = fixture(TESTDATA, 'pom.xml');
  const servicePom = fixture(TESTDATA, 'service/pom.xml');
  const outsideSpringBom = 'it would come from the BOM org.springframework.boot:spring-boot-dependencies:3.1.4, which the repository does not hold';

  test('dependencies resolved through properties and the parent pom found in the tree', async () => {
    const tree = treeContext({ 'pom.xml': parentPom, 'service/pom.xml': servicePom });
    const components = await extract(mavenPomExtractor, 'service/pom.xml', servicePom, tree);
    assert.deepEqual(
      summarize(components.filter((c) => c.version)),
      [
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
        // declared by the parent itself, so every module of it depends on it
        { name: 'org.slf4j:slf4j-api', version: '2.0.9', direct: true, development: false },
        { name: 'org.yaml:snakeyaml', version: '1.33', direct: true, development: false },
      ],
    );
    assert.equal(
      purlOf(components, 'org.apache.logging.log4j:log4j-core', '2.14.1'),
      'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
    );
    // What the repository cannot tell is listed without a version, never guessed, and says why.
    assert.deepEqual(unversioned(components), {
      'com.acme:internal-sdk': `version \${internal.sdk.version} uses a property defined nowhere in the repository (it may come from the BOM org.springframework.boot:spring-boot-dependencies:3.1.4, outside the repository)`,
      'commons-collections:commons-collections': 'version range [3.2,4.0) names no single version',
      'org.example:looping': `version \${loop.a} uses a property defined nowhere in the repository (it may come from the BOM org.springframework.boot:spring-boot-dependencies:3.1.4, outside the repository)`,
      'org.springframework.boot:spring-boot-starter-web': `no version in the repository: ${outsideSpringBom}`,
    });
    assert.equal(components.find((c) => !c.version)?.purl.includes('@'), false);
  });

  test('without the parent pom, what only it supplies is listed without a version', async () => {
    const components = await extract(mavenPomExtractor, 'service/pom.xml', servicePom);
    assert.deepEqual(
      summarize(components.filter((c) => c.version)).map((c) => c.name),
      [
        'com.acme:acme-common',
        'com.acme:acme-model',
        'com.sun:tools',
        'io.netty:netty-handler',
        'javax.servlet:javax.servlet-api',
        'org.apache.logging.log4j:log4j-core',
        'org.mockito:mockito-core',
        'org.yaml:snakeyaml',
      ],
    );
    const notes = unversioned(components);
    assert.equal(
      notes['com.google.guava:guava'],
      'no version in the repository: it would come from the parent pom com.acme:acme-parent:2.3.0, which the repository does not hold',
    );
    assert.ok(notes['com.fasterxml.jackson.core:jackson-databind']);
    assert.ok(notes['org.junit.jupiter:junit-jupiter']);
  });

  test('a pom at the relative path that is not the named parent is not inherited from', async () => {
    for (const otherPom of [
      parentPom.replace('<artifactId>acme-parent</artifactId>', '<artifactId>something-else</artifactId>'),
      parentPom.replace('<version>2.3.0</version>', '<version>2.2.0</version>'),
    ]) {
      const tree = treeContext({ 'pom.xml': otherPom });
      const withOther = await extract(mavenPomExtractor, 'service/pom.xml', servicePom, tree);
      const alone = await extract(mavenPomExtractor, 'service/pom.xml', servicePom);
      assert.deepEqual(summarize(withOther), summarize(alone));
    }
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

describe('a multi-module project (Spring Boot style, a platform BOM and a test BOM of its own)', () => {
  const tree = fixtureTree(TESTDATA, 'shop', '');
  const module = (file: string, context = treeReader(tree)) => extract(mavenPomExtractor, file, tree.get(file)!, context);

  test('every module yields all its components with versions', async () => {
    const context = treeReader(tree);
    const all: Component[] = [];
    for (const file of [...tree.keys()].sort()) all.push(...(await module(file, context)));
    assert.deepEqual(unversioned(all), {});
    assert.deepEqual(
      all.map((c) => `${c.sourceFile} ${c.name}@${c.version}${c.development ? ' (test)' : ''}`).sort(),
      [
        'pom.xml org.slf4j:slf4j-api@2.0.13',
        'shop-api/pom.xml com.example.shop:shop-common@1.4.0-SNAPSHOT',
        // the parent's own dependency, inherited by each of its modules
        'shop-api/pom.xml org.slf4j:slf4j-api@2.0.13',
        'shop-api/pom.xml org.springdoc:springdoc-openapi-starter-webmvc-ui@2.5.0',
        'shop-api/pom.xml org.springframework.boot:spring-boot-starter-test@3.2.5 (test)',
        'shop-api/pom.xml org.springframework.boot:spring-boot-starter-validation@3.2.5',
        'shop-api/pom.xml org.springframework.boot:spring-boot-starter-web@3.2.5',
        // declared in the parent's own dependencyManagement: wins over the BOM's 2.15.4
        'shop-common/pom.xml com.fasterxml.jackson.core:jackson-databind@2.17.1',
        'shop-common/pom.xml com.google.guava:guava@33.2.0-jre',
        'shop-common/pom.xml org.apache.commons:commons-lang3@3.14.0',
        'shop-common/pom.xml org.junit.jupiter:junit-jupiter@5.10.2 (test)',
        'shop-common/pom.xml org.mapstruct:mapstruct@1.5.5.Final',
        'shop-common/pom.xml org.slf4j:slf4j-api@2.0.13',
        'shop-web/pom.xml com.example.shop:shop-api@1.4.0-SNAPSHOT',
        'shop-web/pom.xml org.postgresql:postgresql@42.7.3',
        'shop-web/pom.xml org.slf4j:slf4j-api@2.0.13',
        'shop-web/pom.xml org.springframework.boot:spring-boot-starter-actuator@3.2.5',
        'shop-web/pom.xml org.springframework.boot:spring-boot-starter-data-jpa@3.2.5',
        'shop-web/pom.xml org.testcontainers:junit-jupiter@1.19.8 (test)',
        'shop-web/pom.xml org.testcontainers:postgresql@1.19.8 (test)',
        // tools/ has no pom.xml: the parent is found in the reactor by its coordinates
        'tools/shop-cli/pom.xml com.example.shop:shop-common@1.4.0-SNAPSHOT',
        'tools/shop-cli/pom.xml info.picocli:picocli@4.7.5',
        'tools/shop-cli/pom.xml org.slf4j:slf4j-api@2.0.13',
        'tools/shop-cli/pom.xml org.springframework:spring-context@6.1.6',
      ],
    );
    assert.deepEqual(firstParty(all), [
      'com.example.shop:shop-api@1.4.0-SNAPSHOT',
      'com.example.shop:shop-common@1.4.0-SNAPSHOT',
      'com.example.shop:shop-common@1.4.0-SNAPSHOT',
    ]);
    // Each pom is read once for the whole tree.
    assert.equal(context.reads.length, new Set(context.reads).size);
  });

  test('a BOM outside the repository leaves what it manages without a version, with a note', async () => {
    const withoutBom = new Map(tree);
    withoutBom.delete('shop-test-bom/pom.xml');
    const components = await extract(mavenPomExtractor, 'shop-web/pom.xml', tree.get('shop-web/pom.xml')!, treeReader(withoutBom));
    const note = 'no version in the repository: it would come from the BOM com.example.shop:shop-test-bom:1.4.0-SNAPSHOT, which the repository does not hold';
    assert.deepEqual(unversioned(components), { 'org.testcontainers:postgresql': note, 'org.testcontainers:junit-jupiter': note });
    assert.equal(components.find((c) => c.name === 'org.postgresql:postgresql')?.version, '42.7.3');
  });

  test('a module on its own still knows its siblings as first-party when the reactor is in the tree', async () => {
    const components = await module('shop-web/pom.xml');
    assert.deepEqual(firstParty(components), ['com.example.shop:shop-api@1.4.0-SNAPSHOT']);
  });

  test('a Spring Boot application with the starter parent from Maven Central', async () => {
    const boot = fixtureTree(TESTDATA, 'boot-app', '');
    const components = await extract(mavenPomExtractor, 'pom.xml', boot.get('pom.xml')!, treeReader(boot));
    assert.deepEqual(summarize(components.filter((c) => c.version)), [
      { name: 'io.jsonwebtoken:jjwt-api', version: '0.12.5', direct: true, development: false },
    ]);
    const outside = 'the parent pom org.springframework.boot:spring-boot-starter-parent:3.2.5';
    assert.deepEqual(unversioned(components), {
      'org.springframework.boot:spring-boot-starter-web': `no version in the repository: it would come from ${outside}, which the repository does not hold`,
      'org.springframework.boot:spring-boot-starter-security': `no version in the repository: it would come from ${outside}, which the repository does not hold`,
      'org.postgresql:postgresql': `no version in the repository: it would come from ${outside}, which the repository does not hold`,
      'org.projectlombok:lombok': `version \${lombok.version} uses a property defined nowhere in the repository (it may come from ${outside}, outside the repository)`,
      'org.springframework.boot:spring-boot-starter-test': `no version in the repository: it would come from ${outside}, which the repository does not hold`,
    });
    assert.equal(components.find((c) => c.name === 'org.springframework.boot:spring-boot-starter-test')?.development, true);
  });

  test('parents and imports that loop end', async () => {
    const loop = new Map([
      ['a/pom.xml', '<project><groupId>g</groupId><artifactId>a</artifactId><version>1</version><parent><groupId>g</groupId><artifactId>b</artifactId><version>1</version><relativePath>../b/pom.xml</relativePath></parent><modules><module>../b</module></modules><dependencyManagement><dependencies><dependency><groupId>g</groupId><artifactId>a</artifactId><version>1</version><type>pom</type><scope>import</scope></dependency></dependencies></dependencyManagement><dependencies><dependency><groupId>x</groupId><artifactId>y</artifactId></dependency></dependencies></project>'],
      ['b/pom.xml', '<project><groupId>g</groupId><artifactId>b</artifactId><version>1</version><parent><groupId>g</groupId><artifactId>a</artifactId><version>1</version><relativePath>../a/pom.xml</relativePath></parent><modules><module>../a</module></modules></project>'],
    ]);
    const components = await extract(mavenPomExtractor, 'a/pom.xml', loop.get('a/pom.xml')!, treeReader(loop));
    assert.deepEqual(components.map((c) => [c.name, c.version]), [['x:y', '']]);
  });
});

describe('dependencies inherited from parents in the repository', () => {
  const tree = fixtureTree(TESTDATA, 'billing', '');
  const listing = async (file: string, files = tree) => {
    const components = await extract(mavenPomExtractor, file, files.get(file)!, treeReader(files));
    return components.map((c) => `${c.name}@${c.version}${c.development ? ' (test)' : ''}${c.firstParty ? ' (first-party)' : ''}`).sort();
  };
  const inherited = (components: Component[]) =>
    Object.fromEntries(components.filter((c) => c.note?.startsWith('inherited')).map((c) => [c.name, c.note]));

  test("a module lists its parents' dependencies, versions and scopes resolved through their properties and dependencyManagement", async () => {
    assert.deepEqual(await listing('billing-core/pom.xml'), [
      'com.fasterxml.jackson.core:jackson-databind@2.16.1',
      // its own declaration wins over the 3.13.0 the parent declares
      'org.apache.commons:commons-lang3@3.14.0',
      // from the parent: the version through its property
      'org.junit.jupiter:junit-jupiter@5.10.2 (test)',
      'org.mockito:mockito-core@5.11.0 (test)',
      'org.projectlombok:lombok@1.18.32',
      // from the grandparent, at the version the parent's property overrides it with
      'org.slf4j:slf4j-api@2.0.12',
    ]);
    const components = await extract(mavenPomExtractor, 'billing-core/pom.xml', tree.get('billing-core/pom.xml')!, treeReader(tree));
    assert.deepEqual(inherited(components), {
      'org.projectlombok:lombok': 'inherited from the parent pom pom.xml',
      'org.mockito:mockito-core': 'inherited from the parent pom pom.xml',
      'org.junit.jupiter:junit-jupiter': 'inherited from the parent pom build/acme-parent/pom.xml',
      'org.slf4j:slf4j-api': 'inherited from the parent pom build/acme-parent/pom.xml',
    });
    assert.ok(components.every((c) => c.direct === true));
  });

  test("the module's own scope wins, and its properties apply to what it inherits", async () => {
    assert.deepEqual(await listing('billing-testkit/pom.xml'), [
      'com.acme.billing:billing-core@3.2.0 (first-party)',
      'org.apache.commons:commons-lang3@3.13.0',
      // declared with compile scope: not the test scope acme-parent's dependencyManagement gives
      'org.junit.jupiter:junit-jupiter@5.10.2',
      'org.mockito:mockito-core@5.11.0 (test)',
      'org.projectlombok:lombok@1.18.32',
      'org.slf4j:slf4j-api@2.0.12',
    ]);
    assert.deepEqual(await listing('billing-service/pom.xml'), [
      'com.acme.billing:billing-core@3.2.0 (first-party)',
      'com.acme.billing:billing-testkit@3.2.0 (test) (first-party)',
      'org.apache.commons:commons-lang3@3.13.0',
      'org.junit.jupiter:junit-jupiter@5.10.2 (test)',
      'org.mockito:mockito-core@5.11.0 (test)',
      'org.postgresql:postgresql@42.7.3',
      'org.projectlombok:lombok@1.18.32',
      // the module's own slf4j.version
      'org.slf4j:slf4j-api@2.0.13',
    ]);
  });

  test('a parent pom lists its own dependencies and those of its parent; a parent outside the repository gives none', async () => {
    assert.deepEqual(await listing('pom.xml'), [
      'org.apache.commons:commons-lang3@3.13.0',
      'org.junit.jupiter:junit-jupiter@5.10.2 (test)',
      'org.mockito:mockito-core@5.11.0 (test)',
      'org.projectlombok:lombok@1.18.32',
      'org.slf4j:slf4j-api@2.0.12',
    ]);
    assert.deepEqual(await listing('build/acme-parent/pom.xml'), ['org.junit.jupiter:junit-jupiter@5.10.2 (test)', 'org.slf4j:slf4j-api@2.0.9']);
    const withoutOrganisationParent = new Map(tree);
    withoutOrganisationParent.delete('build/acme-parent/pom.xml');
    assert.deepEqual(await listing('billing-core/pom.xml', withoutOrganisationParent), [
      'com.fasterxml.jackson.core:jackson-databind@2.16.1',
      'org.apache.commons:commons-lang3@3.14.0',
      'org.mockito:mockito-core@5.11.0 (test)',
      'org.projectlombok:lombok@1.18.32',
    ]);
  });

  test('an inherited dependency the repository cannot version says both where it comes from and what is missing', async () => {
    const withoutVersion = new Map(tree);
    withoutVersion.set('pom.xml', tree.get('pom.xml')!.replace('<version>${lombok.version}</version>', '<version>${lombok.release}</version>'));
    const components = await extract(mavenPomExtractor, 'billing-core/pom.xml', tree.get('billing-core/pom.xml')!, treeReader(withoutVersion));
    assert.deepEqual(unversioned(components), {
      'org.projectlombok:lombok': 'inherited from the parent pom pom.xml; version ${lombok.release} uses a property defined nowhere in the repository',
    });
  });
});

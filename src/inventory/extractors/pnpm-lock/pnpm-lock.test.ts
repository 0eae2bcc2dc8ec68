import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims, ExtractError } from '../extractor.ts';
import { extractFixture, rows, find, assertExtractError, contextOf, type Row } from '../js/testing.ts';
import { pnpmLockExtractor } from './pnpm-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('pnpm-lock extractor', () => {
  test('claims pnpm-lock.yaml only', () => {
    assert.equal(pnpmLockExtractor.id, 'pnpm-lock');
    assert.equal(pnpmLockExtractor.ecosystem, 'npm');
    assert.ok(claims(pnpmLockExtractor, 'pnpm-lock.yaml'));
    assert.ok(!claims(pnpmLockExtractor, 'pnpm-workspace.yaml'));
    assert.ok(!claims(pnpmLockExtractor, 'yarn.lock'));
  });

  test('lockfileVersion 5.4: /name/version keys with _peer suffixes, single-project sections at the top', async () => {
    const components = await extractFixture(TESTDATA, pnpmLockExtractor, 'pnpm-v5', 'pnpm-lock.yaml');
    assert.deepEqual(rows(components), [
      ['@types/prop-types', '15.7.12', false, true],
      ['@types/react', '18.2.79', true, true],
      ['csstype', '3.1.3', false, true],
      ['js-tokens', '4.0.0', false, false],
      ['loose-envify', '1.4.0', false, false],
      ['react', '18.2.0', true, false],
      ['react-dom', '18.2.0', true, false],
      ['scheduler', '0.23.2', false, false],
      ['typescript', '5.4.5', true, true],
    ] satisfies Row[]);
    assert.equal(find(components, '@types/react', '18.2.79').purl, 'pkg:npm/%40types/react@18.2.79');
  });

  test('lockfileVersion 6.1, single project: specifier/version objects at the top, (peer) suffixes', async () => {
    const components = await extractFixture(TESTDATA, pnpmLockExtractor, 'pnpm-v6-single', 'pnpm-lock.yaml');
    assert.deepEqual(rows(components), [
      ['@tanstack/query-core', '5.35.1', false, false],
      ['@tanstack/react-query', '5.35.1', true, false],
      ['js-tokens', '4.0.0', false, false],
      ['loose-envify', '1.4.0', false, false],
      ['prettier', '3.2.5', true, true],
      ['react', '18.3.1', true, false],
    ] satisfies Row[]);
    assert.equal(find(components, '@tanstack/react-query', '5.35.1').purl, 'pkg:npm/%40tanstack/react-query@5.35.1');
  });

  test('lockfileVersion 6.0 workspace: peer variants merged, alias, git package, links and file: folders skipped', async () => {
    const components = await extractFixture(TESTDATA, pnpmLockExtractor, 'pnpm-v6-workspace', 'pnpm-lock.yaml');
    // The linked workspace package is first-party, named by the link (no package.json to give a version).
    assert.deepEqual(rows(components.filter((c) => c.firstParty)), [['@mono/core', '', null, undefined]] satisfies Row[]);
    assert.deepEqual(rows(components.filter((c) => !c.firstParty)), [
      ['@types/lodash', '4.17.4', false, true],
      ['@types/lodash-es', '4.17.12', true, true],
      ['fsevents', '2.3.3', true, false],
      ['is-number', '7.0.0', true, false],
      ['js-tokens', '4.0.0', false, false],
      ['left-pad', '1.1.3', true, false],
      ['lodash-es', '4.17.21', true, false],
      ['loose-envify', '1.4.0', false, false],
      ['object-assign', '4.1.1', false, false],
      ['react', '17.0.2', true, false],
      ['react', '18.2.0', true, false],
      ['typescript', '5.4.5', true, true],
      ['use-sync-external-store', '1.2.2', true, false],
    ] satisfies Row[]);
    assert.ok(components.every((c) => c.sourceFile === 'services/web/pnpm-lock.yaml'));
  });

  test('lockfileVersion 6.0 without dev marks: walking from the importers gives the same answer', async () => {
    const marked = await extractFixture(TESTDATA, pnpmLockExtractor, 'pnpm-v6-workspace', 'pnpm-lock.yaml');
    const text = fs.readFileSync(path.join(TESTDATA, 'pnpm-v6-workspace/pnpm-lock.yaml'), 'utf8');
    const unmarked = text.replace(/^ {4}dev: (true|false)\n/gm, '');
    assert.notEqual(unmarked, text);
    const walked = await pnpmLockExtractor.extract({ path: 'services/web/pnpm-lock.yaml', text: unmarked }, contextOf(new Map()));
    assert.deepEqual(rows(walked), rows(marked));
  });

  test('lockfileVersion 9.0 workspace: snapshots, nested peer suffixes, development by reach', async () => {
    const components = await extractFixture(TESTDATA, pnpmLockExtractor, 'pnpm-v9-workspace', 'pnpm-lock.yaml');
    // Workspace packages are first-party, versioned from their package.json; apps/web has none and nothing links to it.
    assert.deepEqual(rows(components.filter((c) => c.firstParty)), [['@mono/ui', '0.4.0', null, undefined]] satisfies Row[]);
    assert.deepEqual(rows(components.filter((c) => !c.firstParty)), [
      ['@floating-ui/core', '1.6.1', false, false],
      ['@floating-ui/dom', '1.6.5', false, false],
      ['@floating-ui/react-dom', '2.0.9', true, false],
      ['@floating-ui/utils', '0.2.2', false, false],
      ['@types/prop-types', '15.7.12', false, true],
      ['@types/react', '18.3.1', true, true],
      ['clsx', '2.1.1', true, false],
      ['csstype', '3.1.3', false, true],
      ['fsevents', '2.3.3', true, false],
      ['js-tokens', '4.0.0', false, false],
      ['left-pad', '1.3.0', true, false],
      ['lodash', '3.10.1', true, false],
      ['loose-envify', '1.4.0', false, false],
      // A devDependency of packages/ui, a dependency of apps/web.
      ['react', '18.3.1', true, false],
      ['react-dom', '18.3.1', true, false],
      ['scheduler', '0.23.2', false, false],
      ['typescript', '5.4.5', true, true],
    ] satisfies Row[]);
    assert.equal(find(components, '@floating-ui/react-dom', '2.0.9').purl, 'pkg:npm/%40floating-ui/react-dom@2.0.9');
    assert.equal(find(components, 'left-pad', '1.3.0').purl, 'pkg:npm/left-pad@1.3.0');
  });

  test('a file that is not a pnpm lock is an ExtractError', async () => {
    await assertExtractError(pnpmLockExtractor, 'pnpm-lock.yaml', "lockfileVersion: '9.0'\npackages:\n  a@1.0.0: {\n", /not valid YAML/);
    await assertExtractError(pnpmLockExtractor, 'pnpm-lock.yaml', 'packages: {}\n', /lockfileVersion/);
    await assertExtractError(pnpmLockExtractor, 'pnpm-lock.yaml', "lockfileVersion: '9.0'\npackages: [a, b]\n", /"packages" is not a mapping/);
    await assertExtractError(pnpmLockExtractor, 'pnpm-lock.yaml', "lockfileVersion: '3'\n", /unsupported lockfileVersion/);
  });

  test('the dependency graph from snapshots (9.0) and package entries (5.4), and integrity as a SHA-512 hash', async () => {
    for (const fixture of ['pnpm-v5', 'pnpm-v9-workspace']) {
      const components = await extractFixture(TESTDATA, pnpmLockExtractor, fixture, 'pnpm-lock.yaml');
      const reactDom = components.find((c) => c.name === 'react-dom');
      assert.deepEqual(reactDom?.dependsOn, [
        'pkg:npm/loose-envify@1.4.0',
        `pkg:npm/react@${reactDom?.version}`,
        'pkg:npm/scheduler@0.23.2',
      ], fixture);
      const jsTokens = components.find((c) => c.name === 'js-tokens');
      assert.equal(jsTokens?.hashes?.[0]?.algorithm, 'SHA-512', fixture);
      assert.equal(jsTokens?.hashes?.[0]?.content.length, 128, fixture);
    }
  });
});

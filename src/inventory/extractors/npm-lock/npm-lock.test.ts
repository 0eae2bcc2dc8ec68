import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims, ExtractError } from '../extractor.ts';
import { extractFixture, rows, find, assertExtractError, contextOf, type Row } from '../js/testing.ts';
import { npmLockExtractor } from './npm-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('npm-lock extractor', () => {
  test('claims package-lock.json and npm-shrinkwrap.json only', () => {
    assert.equal(npmLockExtractor.id, 'npm-lock');
    assert.equal(npmLockExtractor.ecosystem, 'npm');
    assert.ok(claims(npmLockExtractor, 'package-lock.json'));
    assert.ok(claims(npmLockExtractor, 'npm-shrinkwrap.json'));
    assert.ok(!claims(npmLockExtractor, 'package.json'));
    assert.ok(!claims(npmLockExtractor, 'yarn.lock'));
  });

  test('lockfileVersion 3 with workspaces: nested copies, links skipped, workspace declarations direct', async () => {
    const components = await extractFixture(TESTDATA, npmLockExtractor, 'npm-v3-workspaces', 'package-lock.json');
    // The workspace members themselves are first-party; the root declares neither.
    assert.deepEqual(rows(components.filter((c) => c.firstParty)), [
      ['@mono/api', '1.0.0', false, undefined],
      ['@mono/shared', '0.2.0', true, undefined],
    ] satisfies Row[]);
    assert.deepEqual(rows(components.filter((c) => !c.firstParty)), [
      ['@types/node', '20.12.7', true, true],
      ['debug', '4.3.4', true, false],
      ['fsevents', '2.3.3', true, false],
      ['lru-cache', '6.0.0', false, false],
      ['make-dir', '3.1.0', true, true],
      ['ms', '2.1.2', false, false],
      ['ms', '2.1.3', true, false],
      // Dev-only under make-dir, but also a production dependency the shared workspace declares.
      ['semver', '6.3.1', true, false],
      ['semver', '7.6.0', true, false],
      ['typescript', '5.4.5', true, true],
      ['undici-types', '5.26.5', false, true],
      ['yallist', '4.0.0', false, false],
    ] satisfies Row[]);
    const typesNode = find(components, '@types/node', '20.12.7');
    assert.equal(typesNode.purl, 'pkg:npm/%40types/node@20.12.7');
    assert.equal(typesNode.ecosystem, 'npm');
    assert.ok(components.every((c) => c.sourceFile === 'services/web/package-lock.json'));
  });

  test('lockfileVersion 2: reads the packages map, with aliases under their real name and file: folders first-party', async () => {
    const components = await extractFixture(TESTDATA, npmLockExtractor, 'npm-v2', 'package-lock.json');
    assert.deepEqual(rows(components.filter((c) => c.firstParty)), [['local-utils', '1.0.0', true, undefined]] satisfies Row[]);
    assert.deepEqual(rows(components.filter((c) => !c.firstParty)), [
      ['@babel/runtime', '7.24.4', true, false],
      ['lodash', '3.10.1', true, false],
      ['lodash', '4.17.21', true, false],
      ['minimist', '0.0.10', false, false],
      ['minimist', '1.2.8', false, true],
      ['mkdirp', '0.5.6', true, true],
      ['optimist', '0.6.1', true, false],
      ['regenerator-runtime', '0.14.1', false, false],
      ['wordwrap', '0.0.3', false, false],
    ] satisfies Row[]);
    assert.equal(find(components, 'lodash', '3.10.1').purl, 'pkg:npm/lodash@3.10.1');
    assert.equal(find(components, '@babel/runtime', '7.24.4').purl, 'pkg:npm/%40babel/runtime@7.24.4');
  });

  test('npm-shrinkwrap.json is read like package-lock.json', async () => {
    const text = fs.readFileSync(path.join(TESTDATA, 'npm-v2/package-lock.json'), 'utf8');
    const components = await npmLockExtractor.extract({ path: 'npm-shrinkwrap.json', text }, contextOf(new Map()));
    assert.equal(components.length, 10);
    assert.ok(components.every((c) => c.sourceFile === 'npm-shrinkwrap.json'));
  });

  test('lockfileVersion 1 with its package.json: the nested tree, direct from the declarations', async () => {
    const components = await extractFixture(TESTDATA, npmLockExtractor, 'npm-v1', 'package-lock.json');
    assert.deepEqual(rows(components), [
      ['@types/debug', '4.1.12', true, true],
      ['@types/ms', '0.7.34', false, true],
      ['debug', '2.6.9', true, false],
      ['humanize-ms', '1.2.1', true, false],
      ['lodash', '3.10.1', true, false],
      ['ms', '2.0.0', false, false],
      ['ms', '2.1.3', true, false],
      ['node-gyp-build', '4.8.0', false, false],
      ['utf-8-validate', '5.0.10', true, false],
    ] satisfies Row[]);
    assert.equal(find(components, '@types/ms', '0.7.34').purl, 'pkg:npm/%40types/ms@0.7.34');
  });

  test('lockfileVersion 1 alone: top-level packages nothing requires are direct, required ones unknown', async () => {
    const components = await extractFixture(TESTDATA, npmLockExtractor, 'npm-v1', 'package-lock.json', { withManifests: false });
    assert.deepEqual(rows(components), [
      ['@types/debug', '4.1.12', true, true],
      ['@types/ms', '0.7.34', null, true],
      ['debug', '2.6.9', true, false],
      ['humanize-ms', '1.2.1', true, false],
      ['lodash', '3.10.1', true, false],
      ['ms', '2.0.0', false, false],
      // Required by humanize-ms, so the lockfile cannot tell whether the root declares it too.
      ['ms', '2.1.3', null, false],
      ['node-gyp-build', '4.8.0', null, false],
      ['utf-8-validate', '5.0.10', true, false],
    ] satisfies Row[]);
  });

  test('a file that is not a package lock is an ExtractError', async () => {
    await assertExtractError(npmLockExtractor, 'package-lock.json', '{"lockfileVersion": 3, "packages": {', /not valid JSON/);
    await assertExtractError(npmLockExtractor, 'package-lock.json', '{"name": "x", "dependencies": {}}', /lockfileVersion/);
    await assertExtractError(npmLockExtractor, 'package-lock.json', '{"lockfileVersion": 3}', /"packages"/);
    await assertExtractError(npmLockExtractor, 'package-lock.json', '[1, 2]', /not a JSON object/);
  });

  test('v2: the dependency graph, integrity digests as hex and declared licenses', async () => {
    const text = fs.readFileSync(path.join(TESTDATA, 'npm-v2/package-lock.json'), 'utf8');
    const components = await npmLockExtractor.extract({ path: 'package-lock.json', text }, contextOf(new Map()));
    const byPurl = new Map(components.map((c) => [c.purl, c]));
    // optimist's own nested minimist 0.0.10, not the top-level 1.2.8
    assert.deepEqual(byPurl.get('pkg:npm/optimist@0.6.1')?.dependsOn, ['pkg:npm/minimist@0.0.10', 'pkg:npm/wordwrap@0.0.3']);
    assert.deepEqual(byPurl.get('pkg:npm/mkdirp@0.5.6')?.dependsOn, ['pkg:npm/minimist@1.2.8']);
    assert.deepEqual(byPurl.get('pkg:npm/%40babel/runtime@7.24.4')?.dependsOn, ['pkg:npm/regenerator-runtime@0.14.1']);
    assert.equal(byPurl.get('pkg:npm/wordwrap@0.0.3')?.dependsOn, undefined);
    assert.deepEqual(byPurl.get('pkg:npm/regenerator-runtime@0.14.1')?.hashes, [
      {
        algorithm: 'SHA-512',
        content: Buffer.from('nd6wRL6n389/2U2Qe2ZKJMH3z13WNS+hR2bhdS4SfdlJpWEKZRGvJgG1eWPJFSPKNTtm5Icp6OfTebWIUpAUrA==', 'base64').toString('hex'),
      },
    ]);
    assert.equal(byPurl.get('pkg:npm/regenerator-runtime@0.14.1')?.hashes?.[0]?.content.length, 128);
    assert.deepEqual(byPurl.get('pkg:npm/regenerator-runtime@0.14.1')?.licenses, ['MIT']);
    assert.deepEqual(byPurl.get('pkg:npm/optimist@0.6.1')?.licenses, ['MIT/X11']);
    assert.equal(byPurl.get('pkg:npm/wordwrap@0.0.3')?.licenses, undefined);
  });

  test('v1: requires resolved through the nested trees, and integrity as a hash', async () => {
    const components = await extractFixture(TESTDATA, npmLockExtractor, 'npm-v1', 'package-lock.json');
    const byPurl = new Map(components.map((c) => [c.purl, c]));
    assert.deepEqual(byPurl.get('pkg:npm/debug@2.6.9')?.dependsOn, ['pkg:npm/ms@2.0.0']); // its own nested copy
    assert.deepEqual(byPurl.get('pkg:npm/humanize-ms@1.2.1')?.dependsOn, ['pkg:npm/ms@2.1.3']);
    assert.equal(byPurl.get('pkg:npm/ms@2.0.0')?.hashes?.[0]?.algorithm, 'SHA-512');
  });
});

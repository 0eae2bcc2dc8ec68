import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { Component } from '../src/sbom/component.ts';
import { ExtractError, type ExtractContext, type Extractor } from '../src/sbom/extractors/extractor.ts';
import { npmLockExtractor } from '../src/sbom/extractors/npm-lock.ts';
import { pnpmLockExtractor } from '../src/sbom/extractors/pnpm-lock.ts';
import { yarnLockExtractor } from '../src/sbom/extractors/yarn-lock.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures/sbom/js');

/** name, version, direct, development */
type Row = [string, string, boolean | null, boolean | undefined];

/** A fixture folder's files as a repository tree mounted under `root`, so lockfiles sit in a subfolder. */
function fixtureTree(fixture: string, root: string): Map<string, string> {
  const dir = path.join(FIXTURES, fixture);
  const files = new Map<string, string>();
  for (const relative of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const full = path.join(dir, relative);
    if (fs.statSync(full).isFile()) files.set(path.posix.join(root, relative.split(path.sep).join('/')), fs.readFileSync(full, 'utf8'));
  }
  return files;
}

function contextOf(files: Map<string, string>): ExtractContext {
  return { readFile: async (file) => files.get(path.posix.normalize(file)) ?? null };
}

/** Extracts `<root>/<lockfile>` from a fixture; without manifests, the context holds the lockfile alone. */
async function extractFixture(
  extractor: Extractor,
  fixture: string,
  lockfile: string,
  { root = 'services/web', withManifests = true } = {},
): Promise<Component[]> {
  const tree = fixtureTree(fixture, root);
  const lockPath = path.posix.join(root, lockfile);
  const text = tree.get(lockPath);
  assert.ok(text !== undefined, `${fixture} has no ${lockfile}`);
  const visible = withManifests ? tree : new Map([[lockPath, text]]);
  return extractor.extract({ path: lockPath, text }, contextOf(visible));
}

function rows(components: Component[]): Row[] {
  return components.map((c) => [c.name, c.version, c.direct, c.development]);
}

function find(components: Component[], name: string, version: string): Component {
  const found = components.find((c) => c.name === name && c.version === version);
  assert.ok(found, `${name}@${version} not extracted`);
  return found;
}

async function assertExtractError(extractor: Extractor, fileName: string, text: string, reason: RegExp) {
  await assert.rejects(
    async () => extractor.extract({ path: `broken/${fileName}`, text }, contextOf(new Map())),
    (error: unknown) => error instanceof ExtractError && error.message.startsWith(`broken/${fileName}: `) && reason.test(error.message),
  );
}

describe('npm-lock extractor', () => {
  test('claims package-lock.json and npm-shrinkwrap.json only', () => {
    assert.equal(npmLockExtractor.id, 'npm-lock');
    assert.equal(npmLockExtractor.ecosystem, 'npm');
    assert.ok(npmLockExtractor.matches('package-lock.json'));
    assert.ok(npmLockExtractor.matches('npm-shrinkwrap.json'));
    assert.ok(!npmLockExtractor.matches('package.json'));
    assert.ok(!npmLockExtractor.matches('yarn.lock'));
  });

  test('lockfileVersion 3 with workspaces: nested copies, links skipped, workspace declarations direct', async () => {
    const components = await extractFixture(npmLockExtractor, 'npm-v3-workspaces', 'package-lock.json');
    assert.deepEqual(rows(components), [
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

  test('lockfileVersion 2: reads the packages map, with aliases under their real name and file: links skipped', async () => {
    const components = await extractFixture(npmLockExtractor, 'npm-v2', 'package-lock.json');
    assert.deepEqual(rows(components), [
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
    const text = fs.readFileSync(path.join(FIXTURES, 'npm-v2/package-lock.json'), 'utf8');
    const components = await npmLockExtractor.extract({ path: 'npm-shrinkwrap.json', text }, contextOf(new Map()));
    assert.equal(components.length, 9);
    assert.ok(components.every((c) => c.sourceFile === 'npm-shrinkwrap.json'));
  });

  test('lockfileVersion 1 with its package.json: the nested tree, direct from the declarations', async () => {
    const components = await extractFixture(npmLockExtractor, 'npm-v1', 'package-lock.json');
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
    const components = await extractFixture(npmLockExtractor, 'npm-v1', 'package-lock.json', { withManifests: false });
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
});

describe('yarn-lock extractor', () => {
  test('claims yarn.lock only', () => {
    assert.equal(yarnLockExtractor.id, 'yarn-lock');
    assert.equal(yarnLockExtractor.ecosystem, 'npm');
    assert.ok(yarnLockExtractor.matches('yarn.lock'));
    assert.ok(!yarnLockExtractor.matches('package-lock.json'));
    assert.ok(!yarnLockExtractor.matches('pnpm-lock.yaml'));
  });

  test('Yarn 1 with its package.json: aliases resolved, file: folders skipped, development by reach', async () => {
    const components = await extractFixture(yarnLockExtractor, 'yarn-v1', 'yarn.lock');
    assert.deepEqual(rows(components), [
      ['@babel/code-frame', '7.24.2', true, false],
      ['@babel/helper-validator-identifier', '7.24.5', false, false],
      // Declared as a devDependency, but @babel/code-frame needs it in production.
      ['@babel/highlight', '7.24.5', true, false],
      ['ansi-regex', '5.0.1', false, false],
      ['ansi-regex', '6.0.1', false, true],
      ['emoji-regex', '8.0.0', false, false],
      ['fsevents', '2.3.3', true, false],
      ['is-fullwidth-code-point', '3.0.0', false, false],
      ['js-tokens', '4.0.0', false, false],
      ['picocolors', '1.0.1', false, false],
      ['string-width', '4.2.3', true, false],
      ['strip-ansi', '6.0.1', false, false],
      ['strip-ansi', '7.1.0', true, true],
    ] satisfies Row[]);
    const codeFrame = find(components, '@babel/code-frame', '7.24.2');
    assert.equal(codeFrame.purl, 'pkg:npm/%40babel/code-frame@7.24.2');
    assert.equal(codeFrame.sourceFile, 'services/web/yarn.lock');
  });

  test('Yarn 1 without a package.json: the lockfile does not say what is direct or dev', async () => {
    const components = await extractFixture(yarnLockExtractor, 'yarn-v1', 'yarn.lock', { withManifests: false });
    assert.equal(components.length, 13);
    assert.ok(components.every((c) => c.direct === null && c.development === undefined && !('development' in c)));
  });

  test('Yarn 1 with workspaces behind a glob: packages the root does not declare are of unknown directness', async () => {
    const lockfile = [
      '# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.',
      '# yarn lockfile v1',
      '',
      '',
      'lodash@^4.17.21:',
      '  version "4.17.21"',
      '  resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#679591c564c3bffaae8454cf0b3df370c3d6911c"',
      '',
      'prettier@^3.2.5:',
      '  version "3.2.5"',
      '  resolved "https://registry.yarnpkg.com/prettier/-/prettier-3.2.5.tgz#e52bc3090586e824964a8813b09aba6233b28368"',
      '',
    ].join('\n');
    const manifest = JSON.stringify({ private: true, workspaces: ['packages/*'], devDependencies: { prettier: '^3.2.5' } });
    const context = contextOf(new Map([['package.json', manifest]]));
    const components = await yarnLockExtractor.extract({ path: 'yarn.lock', text: lockfile }, context);
    assert.deepEqual(rows(components), [
      ['lodash', '4.17.21', null, undefined],
      // A workspace that could not be read might need it in production.
      ['prettier', '3.2.5', true, undefined],
    ] satisfies Row[]);
  });

  test('Yarn 3 workspaces: workspace, link and patch entries folded away, direct from the workspace entries', async () => {
    const components = await extractFixture(yarnLockExtractor, 'yarn-berry', 'yarn.lock');
    assert.deepEqual(rows(components), [
      ['@types/lodash', '4.17.4', true, true],
      ['function-bind', '1.1.2', false, false],
      ['hasown', '2.0.2', false, false],
      ['is-core-module', '2.13.1', false, false],
      ['lodash', '4.17.21', true, false],
      ['ms', '0.7.3', true, false],
      ['path-parse', '1.0.7', false, false],
      ['resolve', '1.22.8', true, false],
      ['supports-preserve-symlinks-flag', '1.0.0', false, false],
      ['typescript', '5.4.5', true, true],
    ] satisfies Row[]);
    assert.equal(find(components, '@types/lodash', '4.17.4').purl, 'pkg:npm/%40types/lodash@4.17.4');
    assert.equal(find(components, 'ms', '0.7.3').purl, 'pkg:npm/ms@0.7.3');
  });

  test('Yarn 3 without the package.json files: direct still known, development not', async () => {
    const components = await extractFixture(yarnLockExtractor, 'yarn-berry', 'yarn.lock', { withManifests: false });
    assert.deepEqual(rows(components), [
      ['@types/lodash', '4.17.4', true, undefined],
      ['function-bind', '1.1.2', false, undefined],
      ['hasown', '2.0.2', false, undefined],
      ['is-core-module', '2.13.1', false, undefined],
      ['lodash', '4.17.21', true, undefined],
      ['ms', '0.7.3', true, undefined],
      ['path-parse', '1.0.7', false, undefined],
      ['resolve', '1.22.8', true, undefined],
      ['supports-preserve-symlinks-flag', '1.0.0', false, undefined],
      ['typescript', '5.4.5', true, undefined],
    ] satisfies Row[]);
  });

  test('Yarn 4: dependency ranges written with the npm: protocol', async () => {
    const components = await extractFixture(yarnLockExtractor, 'yarn-berry-v8', 'yarn.lock', { root: '' });
    assert.deepEqual(rows(components), [
      ['@types/debug', '4.1.12', true, true],
      ['@types/ms', '0.7.34', false, true],
      ['debug', '4.3.4', true, false],
      ['ms', '2.1.2', false, false],
    ] satisfies Row[]);
    assert.ok(components.every((c) => c.sourceFile === 'yarn.lock'));
  });

  test('a file that is not a yarn.lock is an ExtractError', async () => {
    await assertExtractError(yarnLockExtractor, 'yarn.lock', '# yarn lockfile v1\n\nlodash@^4.17.21:\n  version "4.17.21\n', /not a yarn\.lock/);
    await assertExtractError(yarnLockExtractor, 'yarn.lock', '- lodash\n- react\n', /not a yarn\.lock/);
    await assertExtractError(yarnLockExtractor, 'yarn.lock', '__metadata:\n  version: 8\n\n"lodash@npm:^4.17.21":\n  resolution: "lodash@npm:4.17.21"\n', /has no version/);
  });
});

describe('pnpm-lock extractor', () => {
  test('claims pnpm-lock.yaml only', () => {
    assert.equal(pnpmLockExtractor.id, 'pnpm-lock');
    assert.equal(pnpmLockExtractor.ecosystem, 'npm');
    assert.ok(pnpmLockExtractor.matches('pnpm-lock.yaml'));
    assert.ok(!pnpmLockExtractor.matches('pnpm-workspace.yaml'));
    assert.ok(!pnpmLockExtractor.matches('yarn.lock'));
  });

  test('lockfileVersion 5.4: /name/version keys with _peer suffixes, single-project sections at the top', async () => {
    const components = await extractFixture(pnpmLockExtractor, 'pnpm-v5', 'pnpm-lock.yaml');
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
    const components = await extractFixture(pnpmLockExtractor, 'pnpm-v6-single', 'pnpm-lock.yaml');
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
    const components = await extractFixture(pnpmLockExtractor, 'pnpm-v6-workspace', 'pnpm-lock.yaml');
    assert.deepEqual(rows(components), [
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
    const marked = await extractFixture(pnpmLockExtractor, 'pnpm-v6-workspace', 'pnpm-lock.yaml');
    const text = fs.readFileSync(path.join(FIXTURES, 'pnpm-v6-workspace/pnpm-lock.yaml'), 'utf8');
    const unmarked = text.replace(/^ {4}dev: (true|false)\n/gm, '');
    assert.notEqual(unmarked, text);
    const walked = await pnpmLockExtractor.extract({ path: 'services/web/pnpm-lock.yaml', text: unmarked }, contextOf(new Map()));
    assert.deepEqual(rows(walked), rows(marked));
  });

  test('lockfileVersion 9.0 workspace: snapshots, nested peer suffixes, development by reach', async () => {
    const components = await extractFixture(pnpmLockExtractor, 'pnpm-v9-workspace', 'pnpm-lock.yaml');
    assert.deepEqual(rows(components), [
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
});

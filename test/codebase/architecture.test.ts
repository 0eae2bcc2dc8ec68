import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { moduleImports } from '../../scripts/module-imports.ts';

// The layering the README's map describes, checked on the source itself: http parses and serializes,
// core holds the rules, store holds every query; engines, fixers and code-host clients never reach the
// database or shape HTTP answers.

const SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const files = sourceFiles(SRC).map((file) => ({ rel: path.relative(SRC, file).split(path.sep).join('/'), text: fs.readFileSync(file, 'utf8') }));
const QUERY = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql`|\.schema\./;
const importsOf = (text: string) => moduleImports('module.ts', text).filter((i) => !i.dynamic).map((i) => ({ typeOnly: i.typeOnly, spec: i.specifier }));
const resolveImport = (from: string, spec: string) => path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));

test('every query is written in src/store/', () => {
  const offenders = files.filter((f) => !f.rel.startsWith('store/') && QUERY.test(f.text)).map((f) => f.rel);
  assert.deepEqual(offenders, []);
});

// Pure store modules (no database access): serializers decode stored lists with the JSON column codec,
// and the page cache keeps answers in a VersionedCache, as pagination keeps page starts.
const PURE_STORE_MODULES = ['store/json-columns.ts', 'store/versioned-cache.ts'];

test('http only reaches the database through core', () => {
  const offenders = files
    .filter((f) => f.rel.startsWith('http/'))
    .flatMap((f) =>
      importsOf(f.text)
        .filter((i) => !i.typeOnly)
        .filter((i) => resolveImport(f.rel, i.spec).startsWith('store/') && !PURE_STORE_MODULES.includes(resolveImport(f.rel, i.spec)))
        .map((i) => `${f.rel} imports ${i.spec}`),
    );
  assert.deepEqual(offenders, []);
});

test('engines, fixers, OSV matching, SARIF reading, code-host and identity-provider clients import neither the store nor http', () => {
  const engines = ['secrets/', 'sast/', 'sbom/', 'deep/', 'engine.ts', 'engines.ts', 'match-identity.ts', 'pool-thread.ts', 'source-files.ts', 'worker-pool.ts'];
  const pure = [...engines.map((e) => `scanning/${e}`), 'fixing/fixers/', 'inventory/', 'code-hosts/', 'scm/pull-requests/', 'identity/', 'sarif/'];
  const offenders = files
    .filter((f) => pure.some((p) => f.rel.startsWith(p)))
    .flatMap((f) =>
      importsOf(f.text)
        .filter((i) => !i.typeOnly)
        .filter((i) => /^(store|http)\//.test(resolveImport(f.rel, i.spec)))
        .map((i) => `${f.rel} imports ${i.spec}`),
    );
  assert.deepEqual(offenders, []);
});

test("the README's map names every folder of src/, and only folders that exist", () => {
  const readme = fs.readFileSync(path.resolve(SRC, '../README.md'), 'utf8');
  const map = readme.slice(readme.indexOf('## Architecture: the map'));
  const start = map.indexOf('```');
  const block = map.slice(start + 3, map.indexOf('```', start + 3));
  // Each line opens with the folder it describes: from the repository root, or indented under src/.
  const named = [...block.matchAll(/^\s*([\w.-]+(?:\/[\w.-]+)*\/)\s/gm)].map((m) =>
    /^(src|rules|test|console)\//.test(m[1]) ? m[1] : `src/${m[1]}`,
  );
  const root = path.resolve(SRC, '..');
  assert.deepEqual(named.filter((folder) => !fs.existsSync(path.join(root, folder))), [], 'folders the map names that do not exist');
  const topLevel = fs.readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `src/${e.name}/`);
  assert.deepEqual(topLevel.filter((folder) => !named.includes(folder)), [], 'folders of src/ the map leaves out');
});

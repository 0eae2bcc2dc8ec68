import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildInventory } from '../../src/inventory/inventory.ts';

const lock = (deps: Record<string, string>) =>
  JSON.stringify({
    lockfileVersion: 3,
    packages: { '': { name: 'x', dependencies: Object.fromEntries(Object.keys(deps).map((n) => [n, '*'])) }, ...Object.fromEntries(Object.entries(deps).map(([n, v]) => [`node_modules/${n}`, { version: v }])) },
  });

describe('the dependency inventory of a tree', () => {
  let dir: string;
  let outside: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-inventory-'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-outside-'));
    const files: Record<string, string> = {
      'web/package-lock.json': lock({ react: '18.2.0' }),
      'web/node_modules/react/package-lock.json': lock({ 'loose-envify': '1.4.0' }),
      'api/requirements.txt': 'flask==3.0.0\n-r ../shared/requirements-base.txt\n-r ../../escape/requirements.txt\n',
      'shared/requirements-base.txt': 'requests==2.31.0\n',
      'third_party/go.mod': 'module a\n\nrequire github.com/x/y v1.0.0\n',
      'test/fixtures/package-lock.json': lock({ 'fixture-only': '1.0.0' }),
      'generated/Cargo.lock': 'version = 3\n\n[[package]]\nname = "ignored"\nversion = "1.0.0"\nsource = "registry+x"\n',
      '.bulwarkignore': 'generated/\n',
      'broken/composer.lock': '{"packages": [{"name": "a/b", "version": "1.0", "password": hunter2secret}]}',
      'svc/go.mod': 'module svc\n\nrequire (\n\tgithub.com/gin-gonic/gin v1.9.0\n)\n',
    };
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
    fs.writeFileSync(path.join(outside, 'requirements.txt'), 'secret-internal-pkg==9.9.9\n');
    fs.symlinkSync(path.join(outside, 'requirements.txt'), path.join(dir, 'shared', 'linked.txt'));
    fs.appendFileSync(path.join(dir, 'api/requirements.txt'), '-r ../shared/linked.txt\n');
  });
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  test('every manifest outside vendored, fixture and ignored folders; includes stay inside the tree', async () => {
    const notes: string[] = [];
    const inventory = await buildInventory(dir, { onNote: (n) => notes.push(n) });
    assert.deepEqual(
      inventory.components.map((c) => `${c.sourceFile} ${c.purl}`).sort(),
      [
        'api/requirements.txt pkg:pypi/flask@3.0.0',
        'shared/requirements-base.txt pkg:pypi/requests@2.31.0',
        'svc/go.mod pkg:golang/github.com/gin-gonic/gin@v1.9.0',
        'web/package-lock.json pkg:npm/react@18.2.0',
      ],
      'node_modules, third_party, test fixtures, .bulwarkignore, ../ escapes and symlinks out of the tree are all left out',
    );
    assert.deepEqual(
      inventory.manifests.map((m) => [m.path, m.extractor, m.components]),
      [
        ['api/requirements.txt', 'pip-requirements', 2],
        ['shared/requirements-base.txt', 'pip-requirements', 1],
        ['svc/go.mod', 'go-mod', 1],
        ['web/package-lock.json', 'npm-lock', 1],
      ],
    );
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /^broken\/composer\.lock: not valid JSON: Unexpected token 'h' \(not valid JSON\) \(skipped\)$/);
    assert.doesNotMatch(notes[0]!, /hunter2/, 'a note never quotes the file it could not read');
  });

  test('workflows are found by their folder; an unpinned Flask app lists its requirements without versions', async () => {
    const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-inventory-'));
    try {
      const files: Record<string, string> = {
        '.github/workflows/ci.yml': 'on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: ./.github/actions/setup\n',
        '.github/actions/setup/action.yml': 'runs:\n  using: composite\n  steps:\n    - uses: actions/setup-python@v5\n',
        'deploy/ci.yml': 'steps:\n  - uses: not/a-workflow@v1\n',
        'requirements.txt': 'flask\nrequests>=2\n',
      };
      for (const [file, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
        fs.writeFileSync(path.join(tree, file), text);
      }
      const inventory = await buildInventory(tree);
      assert.deepEqual(
        inventory.components.map((c) => `${c.sourceFile} ${c.purl}${c.version ? '' : ' (no version)'}`).sort(),
        [
          '.github/actions/setup/action.yml pkg:githubactions/actions/setup-python@v5',
          '.github/workflows/ci.yml pkg:githubactions/actions/checkout@v4',
          'requirements.txt pkg:pypi/flask (no version)',
          'requirements.txt pkg:pypi/requests (no version)',
        ],
      );
      assert.ok(inventory.components.filter((c) => !c.version).every((c) => /^unpinned/.test(c.note ?? '')));
    } finally {
      fs.rmSync(tree, { recursive: true, force: true });
    }
  });

  test('a cancelled scan stops between manifests', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await assert.rejects(buildInventory(dir, { signal: controller.signal }), /cancelled/);
  });
});

describe('one manifest that cannot be read safely', () => {
  const write = (files: Record<string, string>) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-inventory-'));
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
    return dir;
  };

  test('a pom.xml with a DOCTYPE (external or nested entities) is skipped with a note naming it; the other files keep their components', async () => {
    const secretFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-outside-')), 'secret.txt');
    fs.writeFileSync(secretFile, 'server-secret-7d1e');
    const pom = (doctype: string, groupId: string) =>
      `<?xml version="1.0"?>\n${doctype}\n<project><groupId>g</groupId><artifactId>a</artifactId><version>1</version>` +
      `<dependencies><dependency><groupId>${groupId}</groupId><artifactId>lib</artifactId><version>1.0</version></dependency></dependencies></project>\n`;
    const dir = write({
      'xxe/pom.xml': pom(`<!DOCTYPE project [<!ENTITY x SYSTEM "file://${secretFile}">]>`, '&x;'),
      'laughs/pom.xml': pom(`<!DOCTYPE project [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>`, '&c;'),
      'ok/pom.xml': pom('', 'org.example'),
      'web/package-lock.json': lock({ react: '18.2.0' }),
    });
    try {
      const notes: string[] = [];
      const inventory = await buildInventory(dir, { onNote: (note) => notes.push(note) });
      assert.deepEqual(inventory.components.map((c) => `${c.sourceFile} ${c.name}`).sort(), ['ok/pom.xml org.example:lib', 'web/package-lock.json react']);
      assert.deepEqual(notes.sort(), [
        'laughs/pom.xml: declares a DOCTYPE, whose entities are never expanded, so it is not read (skipped)',
        'xxe/pom.xml: declares a DOCTYPE, whose entities are never expanded, so it is not read (skipped)',
      ]);
      assert.ok(!JSON.stringify(inventory).includes('server-secret-7d1e'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(path.dirname(secretFile), { recursive: true, force: true });
    }
  });

  test("any extractor's failure, not only a format error, skips that one file with a note", async () => {
    const dir = write({ 'a/package-lock.json': lock({ react: '18.2.0' }), 'b/packages.config': '<?xml version="1.0"?><packages/>' });
    try {
      const { EXTRACTORS } = await import('../../src/inventory/extractors/index.ts');
      const failing = EXTRACTORS.map((extractor) =>
        extractor.id === 'nuget-packages-config'
          ? { ...extractor, extract: () => { throw new TypeError('Cannot read properties of undefined (reading "version")'); } }
          : extractor,
      );
      const notes: string[] = [];
      const inventory = await buildInventory(dir, { extractors: failing, onNote: (note) => notes.push(note) });
      assert.deepEqual(inventory.components.map((c) => c.name), ['react']);
      assert.deepEqual(notes, ['b/packages.config: could not be read as nuget-packages-config: Cannot read properties of undefined (reading "…") (skipped)']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Verification of a patched work tree: the deterministic fixers' own patches come out clean, and
// deliberately bad patches are caught as still detected or unparsable.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import pep440 from '@renovatebot/pep440';
import semver from 'semver';
import { parserFor } from '../../src/languages/index.ts';
import { loadRuleSet } from '../../src/scanning/sast/rule-set.ts';
import { analyzeSource } from '../../src/scanning/sast/sast-engine.ts';
import { detectSecrets } from '../../src/scanning/secrets/detector.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { maskSecret } from '../../src/scanning/secrets/text-checks.ts';
import { extractorFor } from '../../src/inventory/extractors/index.ts';
import { createDependencyFixer } from '../../src/fixing/fixers/dependencies/dependency-fixer.ts';
import { fixerFor } from '../../src/fixing/fixers/index.ts';
import { createPackageRegistry } from '../../src/fixing/fixers/dependencies/package-registry.ts';
import type { FixFinding, FixWorkspace } from '../../src/fixing/types.ts';
import { verifyFix } from '../../src/fixing/verify.ts';
import { startRegistryStandIn, type NpmCatalog, type PypiCatalog } from '../support/package-registry-standin.ts';
import { positiveSample } from '../support/secret-samples.ts';

const GHP = positiveSample(SECRET_RULES.find((r) => r.id === 'github-pat')!, 21);
const GHP2 = positiveSample(SECRET_RULES.find((r) => r.id === 'github-pat')!, 22);
const rules = loadRuleSet();

const roots: string[] = [];
after(() => roots.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** A work tree with its files as the base commit has them, and what a patch did to them. */
class Tree {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-fix-verify-'));
  readonly originals = new Map<string, string | null>();

  constructor(files: Record<string, string>) {
    roots.push(this.dir);
    for (const [file, text] of Object.entries(files)) this.#write(file, text);
  }

  get workspace(): FixWorkspace {
    return { dir: this.dir, signal: new AbortController().signal, step: async () => {} };
  }

  read(file: string): string | null {
    const full = path.join(this.dir, file);
    return fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : null;
  }

  /** Patches a file the way an agent would, remembering the original for verification. */
  patch(file: string, text: string | null): void {
    if (!this.originals.has(file)) this.originals.set(file, this.read(file));
    if (text === null) fs.rmSync(path.join(this.dir, file));
    else this.#write(file, text);
  }

  /** Runs the deterministic fixer for each finding, remembering what it changed. */
  async fix(...findings: FixFinding[]): Promise<void> {
    for (const finding of findings) {
      const before = new Map([...new Set([finding.filePath, 'package.json', 'pyproject.toml'])].map((f) => [f, this.read(f)]));
      const outcome = await fixerFor(finding)!.apply(finding, this.workspace);
      assert.equal(outcome.fixed, true, outcome.note);
      for (const file of outcome.changedFiles) if (!this.originals.has(file)) this.originals.set(file, before.get(file) ?? null);
    }
  }

  verify(findings: FixFinding[], changed = [...this.originals.keys()], originals: Map<string, string | null> = this.originals) {
    return verifyFix(this.dir, findings, changed, originals);
  }

  #write(file: string, text: string): void {
    fs.mkdirSync(path.dirname(path.join(this.dir, file)), { recursive: true });
    fs.writeFileSync(path.join(this.dir, file), text);
  }
}

function secretFinding(file: string, text: string, secret: string, id = `s-${secret.slice(-4)}`): FixFinding {
  const match = detectSecrets(text).find((m) => m.secret === secret)!;
  return {
    id,
    scanType: 'secrets_scan',
    checkId: `secrets.${match.rule.id}`,
    severity: 'critical',
    title: match.rule.title,
    message: '',
    filePath: file,
    startLine: match.startLine,
    endLine: match.endLine,
    cwe: [],
    metadata: { masked_secret: maskSecret(secret), secret_hash: 'h', rule: match.rule.id, source: 'tree' },
  };
}

function sastFinding(file: string, text: string, ruleId: string, line?: number, id = `q-${ruleId}-${line ?? 0}`): FixFinding {
  const match = analyzeSource(rules, parserFor(file)!, text).find((m) => m.rule.id === ruleId && (line === undefined || m.startLine === line))!;
  return {
    id,
    scanType: 'semgrep_scan',
    checkId: ruleId,
    severity: 'medium',
    title: null,
    message: '',
    filePath: file,
    startLine: match.startLine,
    endLine: match.endLine,
    cwe: [],
    metadata: { ...(match.rule.fix ? { fix: match.rule.fix } : {}) },
  };
}

function dependencyFinding(file: string, name: string, ecosystem: string, installed: string, fixed: string | null): FixFinding {
  return {
    id: `d-${name}`,
    scanType: 'sbom_scan',
    checkId: 'GHSA-aaaa-bbbb-cccc',
    severity: 'high',
    title: null,
    message: '',
    filePath: file,
    startLine: 1,
    endLine: 1,
    cwe: [],
    metadata: { package: name, ecosystem, installed_version: installed, fixed_version: fixed, purl: '', direct: true },
  };
}

describe('verification: secrets', () => {
  const text = `API_TOKEN = "${GHP}"\nOTHER_TOKEN = "${GHP2}"\n`;

  test('the fixer\'s patch is clean; the secret it did not touch is still detected', async () => {
    // In another file: a fix of one credential of a file moves the file's others with it.
    const other = `OTHER_TOKEN = "${GHP2}"\n`;
    const tree = new Tree({ 'app.py': text.split('\n')[0] + '\n', 'other.py': other });
    const first = secretFinding('app.py', text, GHP);
    const second = secretFinding('other.py', other, GHP2);
    await tree.fix(first);
    assert.deepEqual(await tree.verify([first, second]), { stillDetected: [second.id], unparsable: [] });
    await tree.fix(second);
    assert.deepEqual(await tree.verify([first, second]), { stillDetected: [], unparsable: [] });
  });

  test('a patch that only moves the secret is still detected; one that deletes the file is not', async () => {
    const finding = secretFinding('app.py', text, GHP);
    const moved = new Tree({ 'app.py': text });
    moved.patch('app.py', `# settings\n\n\nclass Config:\n    token = "${GHP}"\n`);
    assert.deepEqual((await moved.verify([finding])).stillDetected, [finding.id]);

    const deleted = new Tree({ 'app.py': text });
    deleted.patch('app.py', null);
    assert.deepEqual(await deleted.verify([finding], []), { stillDetected: [], unparsable: [] });
  });

  test('a patch that hides the secret from the detector, split into pieces or moved to another file, is still detected', async () => {
    const finding = secretFinding('app.py', text, GHP);
    const split = new Tree({ 'app.py': text });
    split.patch('app.py', `API_TOKEN = "${GHP.slice(0, 10)}" + "${GHP.slice(10)}"\nOTHER_TOKEN = "${GHP2}"\n`);
    assert.deepEqual((await split.verify([finding])).stillDetected, [finding.id]);

    const moved = new Tree({ 'app.py': text });
    moved.patch('app.py', `import settings\nAPI_TOKEN = settings.TOKEN\nOTHER_TOKEN = "${GHP2}"\n`);
    moved.patch('settings.json', `{"token": "${GHP}"}\n`);
    assert.deepEqual((await moved.verify([finding])).stillDetected, [finding.id]);
  });

  test('a secret only in the history is always still detected', async () => {
    const tree = new Tree({ 'app.py': 'API_TOKEN = None\n' });
    const finding = { ...secretFinding('app.py', text, GHP), metadata: { rule: 'github-pat', masked_secret: maskSecret(GHP), source: 'history' } };
    assert.deepEqual((await tree.verify([finding], [])).stillDetected, [finding.id]);
  });
});

describe('verification: SAST', () => {
  const text = [
    'import requests',
    '',
    'def a(url):',
    '    return requests.get(url, verify=False)',
    '',
    'def b(url):',
    '    return requests.post(url, verify=False)',
    '',
  ].join('\n');
  const ruleId = 'python.requests.tls.verify-disabled';

  test('the fixer\'s patch is clean for its finding; the other match of the rule is still detected', async () => {
    const tree = new Tree({ 'client.py': text });
    const first = sastFinding('client.py', text, ruleId, 4);
    const second = sastFinding('client.py', text, ruleId, 7);
    await tree.fix(first);
    assert.deepEqual(await tree.verify([first, second]), { stillDetected: [second.id], unparsable: [] });
  });

  test('a patch that changes the matched text but keeps the flaw, or moves it, is still detected', async () => {
    const finding = sastFinding('client.py', text, ruleId, 4);
    const renamed = new Tree({ 'client.py': text });
    renamed.patch('client.py', text.replace('requests.get(url, verify=False)', 'requests.get(target_url, timeout=3, verify=False)'));
    assert.deepEqual((await renamed.verify([finding])).stillDetected, [finding.id]);

    const moved = new Tree({ 'client.py': text });
    moved.patch('client.py', `"""Client."""\n\n\n\n\n\n${text.replace('    return requests.post(url, verify=False)', '    return requests.post(url)')}`);
    const other = sastFinding('client.py', text, ruleId, 7);
    assert.deepEqual((await moved.verify([finding, other])).stillDetected, [finding.id]);

    const reordered = new Tree({ 'client.py': text });
    const [head, fnA, fnB] = text.split(/\n(?=def )/);
    reordered.patch('client.py', [head, fnB.replace(/\n*$/, '\n'), `${fnA.trimEnd()}\n`].join('\n'));
    assert.deepEqual((await reordered.verify([finding, other])).stillDetected, [finding.id, other.id]);
  });

  test('without the original, a match within three lines of the recorded one counts', async () => {
    const finding = sastFinding('client.py', text, ruleId, 4);
    const tree = new Tree({ 'client.py': text });
    tree.patch('client.py', `import os\n${text.replace('verify=False)\n\ndef b', 'verify=True)\n\ndef b')}`);
    assert.deepEqual((await tree.verify([finding], ['client.py'], new Map())).stillDetected, []);
    const untouched = new Tree({ 'client.py': text });
    assert.deepEqual((await untouched.verify([finding], ['client.py'], new Map())).stillDetected, [finding.id]);
  });

  test('a finding of a rule the rule set does not have counts while its file is unchanged', async () => {
    const external: FixFinding = { ...sastFinding('client.py', text, ruleId, 4), id: 'ext', checkId: 'python.semgrep-registry.some-rule' };
    const tree = new Tree({ 'client.py': text });
    assert.deepEqual((await tree.verify([external], [])).stillDetected, ['ext']);
    tree.patch('client.py', text.replace('verify=False', 'verify=True'));
    assert.deepEqual((await tree.verify([external])).stillDetected, []);
  });
});

describe('verification: dependencies', () => {
  const lock = JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies: { lodash: '^4.17.20' } }, 'node_modules/lodash': { version: '4.17.20' } } }, null, 2) + '\n';

  test('the fixer\'s patch is clean', async () => {
    const tree = new Tree({ 'package-lock.json': lock, 'package.json': '{\n  "dependencies": {\n    "lodash": "^4.17.20"\n  }\n}\n' });
    const finding = dependencyFinding('package-lock.json', 'lodash', 'npm', '4.17.20', '4.17.21');
    await tree.fix(finding);
    assert.deepEqual([...tree.originals.keys()], ['package-lock.json', 'package.json']);
    assert.deepEqual(await tree.verify([finding]), { stillDetected: [], unparsable: [] });
  });

  test('a bump that stops short of the fixed version is still detected; removing the package is not', async () => {
    const finding = dependencyFinding('package-lock.json', 'lodash', 'npm', '4.17.20', '4.17.23');
    const short = new Tree({ 'package-lock.json': lock });
    short.patch('package-lock.json', lock.replace('"version": "4.17.20"', '"version": "4.17.21"'));
    assert.deepEqual((await short.verify([finding])).stillDetected, [finding.id]);

    const removed = new Tree({ 'package-lock.json': lock });
    removed.patch('package-lock.json', JSON.stringify({ lockfileVersion: 3, packages: { '': {} } }, null, 2) + '\n');
    assert.deepEqual((await removed.verify([finding])).stillDetected, []);
  });

  test('requirements files, included ones too, and Python locks are read again', async () => {
    const tree = new Tree({
      'requirements.txt': '-r base.txt\nflask==2.0.0\n',
      'base.txt': 'Jinja2==2.11.2\n',
      'poetry.lock': '[[package]]\nname = "requests"\nversion = "2.25.0"\nfiles = []\n',
    });
    const jinja = dependencyFinding('base.txt', 'jinja2', 'PyPI', '2.11.2', '2.11.3');
    const flask = dependencyFinding('requirements.txt', 'flask', 'PyPI', '2.0.0', '2.2.5');
    const requests = dependencyFinding('poetry.lock', 'requests', 'PyPI', '2.25.0', '2.31.0');
    await tree.fix(jinja, requests);
    assert.deepEqual(await tree.verify([jinja, flask, requests]), { stillDetected: [flask.id], unparsable: [] });
  });

  test('a manifest that no longer reads is unparsable, not still detected', async () => {
    const finding = dependencyFinding('package-lock.json', 'lodash', 'npm', '4.17.20', '4.17.21');
    const tree = new Tree({ 'package-lock.json': lock });
    tree.patch('package-lock.json', lock.replace('"lockfileVersion": 3', '"lockfileVersion": "3"'));
    assert.deepEqual(await tree.verify([finding]), {
      stillDetected: [],
      unparsable: [{ file: 'package-lock.json', reason: 'no numeric "lockfileVersion"' }],
    });
  });
});

describe('verification: parse checks', () => {
  test('a change that breaks a source file or a data file is unparsable, with a reason that quotes nothing', async () => {
    const tree = new Tree({
      'app.py': 'def f():\n    return 1\n',
      'web/app.ts': 'export const a = 1;\n',
      'config.json': '{"token": "x"}\n',
      'pyproject.toml': '[project]\nname = "a"\n',
      'compose.yml': 'services:\n  app:\n    image: a\n',
    });
    tree.patch('app.py', 'def f(:\n    return 1\n');
    tree.patch('web/app.ts', 'export const a = ;\n');
    tree.patch('config.json', `{"token": "${GHP}",}\n`);
    tree.patch('pyproject.toml', `[project]\nname = "${GHP}\n`);
    tree.patch('compose.yml', `services:\n  app:\n    image: "${GHP}\n`);
    const { unparsable } = await tree.verify([]);
    assert.deepEqual(unparsable.map((u) => u.file), ['app.py', 'compose.yml', 'config.json', 'pyproject.toml', 'web/app.ts']);
    assert.deepEqual(unparsable.find((u) => u.file === 'app.py'), { file: 'app.py', reason: 'syntax error at line 1' });
    assert.match(unparsable.find((u) => u.file === 'config.json')!.reason, /^not valid JSON: /);
    assert.match(unparsable.find((u) => u.file === 'pyproject.toml')!.reason, /^not valid TOML: /);
    assert.match(unparsable.find((u) => u.file === 'compose.yml')!.reason, /^not valid YAML: /);
    for (const { reason } of unparsable) assert.ok(!reason.includes(GHP.slice(4, 12)), reason);
  });

  test('a file that did not parse before the fix is not blamed on it; a new file is checked on its own', async () => {
    const tree = new Tree({ 'legacy.py': 'print "hello"\n' });
    tree.patch('legacy.py', 'print "hello, world"\n');
    tree.patch('new.py', 'def broken(:\n');
    assert.deepEqual(await tree.verify([]), { stillDetected: [], unparsable: [{ file: 'new.py', reason: 'syntax error at line 1' }] });
  });

  test('the fixers\' own patches in every format parse', async () => {
    const go = `package main\n\nimport "fmt"\n\nconst token = "${GHP}"\n\nfunc main() { fmt.Println(token) }\n`;
    const compose = `services:\n  app:\n    environment:\n      GH_TOKEN: ${GHP}\n`;
    const tree = new Tree({ 'main.go': go, 'docker-compose.yml': compose });
    const findings = [secretFinding('main.go', go, GHP, 'go'), secretFinding('docker-compose.yml', compose, GHP, 'compose')];
    await tree.fix(...findings);
    assert.deepEqual(await tree.verify(findings), { stillDetected: [], unparsable: [] });
  });
});

describe('verification: the dependency fixer on the real lockfiles of the extractors\' testdata', () => {
  const FIXTURES = path.join(import.meta.dirname, '../../src/inventory/extractors');
  const lockfiles = [
    'npm-lock/testdata/npm-v1/package-lock.json',
    'npm-lock/testdata/npm-v2/package-lock.json',
    'npm-lock/testdata/npm-v3-workspaces/package-lock.json',
    'poetry-lock/testdata/poetry-1.1/poetry.lock',
    'poetry-lock/testdata/poetry-2.0/poetry.lock',
    'poetry-lock/testdata/poetry-2.1/poetry.lock',
    'uv-lock/testdata/uv/uv.lock',
    'pdm-lock/testdata/pdm-groups/pdm.lock',
    'pdm-lock/testdata/pdm-no-groups/pdm.lock',
    'python-requirements/testdata/requirements/services/api/requirements.txt',
  ];

  /** The fixture's folder as a tree of its own. */
  function fixtureFiles(lockfile: string): Record<string, string> {
    const root = path.join(FIXTURES, path.dirname(lockfile));
    const files: Record<string, string> = {};
    for (const relative of fs.readdirSync(root, { recursive: true, encoding: 'utf8' })) {
      const full = path.join(root, relative);
      if (fs.statSync(full).isFile()) files[relative.split(path.sep).join('/')] = fs.readFileSync(full, 'utf8');
    }
    return files;
  }

  /** npm writes a lock again only beside its package.json: those of the project and its workspaces, as the lock mirrors them. */
  function withPackageJsons(files: Record<string, string>): Record<string, string> {
    const packages = files['package-lock.json'] ? JSON.parse(files['package-lock.json']).packages : undefined;
    for (const [folder, entry] of Object.entries((packages ?? {}) as Record<string, Record<string, unknown>>)) {
      const manifest = folder ? `${folder}/package.json` : 'package.json';
      if (folder.includes('node_modules/') || folder.startsWith('node_modules') || files[manifest]) continue;
      const fields = ['name', 'version', 'workspaces', 'dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];
      files[manifest] = `${JSON.stringify(Object.fromEntries(fields.filter((f) => f in entry).map((f) => [f, entry[f]])), null, 2)}\n`;
    }
    return files;
  }

  const nextVersion = (ecosystem: string, version: string) => (ecosystem === 'npm' ? semver.inc(version, 'patch') : pep440.inc(version, 'patch'));

  for (const lockfile of lockfiles) {
    test(`${lockfile}: every package, raised one patch version, is fixed and verified or refused untouched`, async () => {
      const files = withPackageJsons(fixtureFiles(lockfile));
      const file = path.posix.basename(lockfile);
      const extractor = extractorFor(file)!;
      const context = { readFile: async (p: string) => files[path.posix.normalize(p)] ?? null };
      const components = (await extractor.extract({ path: file, text: files[file] }, context)).filter((c) => c.sourceFile === file);
      assert.ok(components.length >= 3);
      // A registry that knows each locked version and the next patch, with no requirements between them.
      const pypi: PypiCatalog = {};
      const npm: NpmCatalog = {};
      for (const component of components) {
        const next = nextVersion(component.ecosystem, component.version);
        for (const version of [component.version, next].filter((v): v is string => !!v)) {
          if (component.ecosystem === 'npm') (npm[component.name] ??= {})[version] = {};
          else (pypi[component.name] ??= {})[version] = [];
        }
      }
      const registry = await startRegistryStandIn({ pypi, npm });
      after(() => registry.close());
      const fixer = createDependencyFixer({ registry: createPackageRegistry({ pypiUrl: registry.url, npmUrl: registry.url }) });
      let fixedCount = 0;
      // A lock taking a package from outside the registry (a file: folder, a link outside it) is not regenerated.
      let sealedOff = 0;
      for (const component of components) {
        const fixed = nextVersion(component.ecosystem, component.version);
        if (!fixed) continue;
        const tree = new Tree(files);
        const finding = dependencyFinding(file, component.name, component.ecosystem, component.version, fixed);
        assert.equal(fixerFor(finding)?.name, fixer.name);
        const outcome = await fixer.apply(finding, tree.workspace);
        if (!outcome.fixed) {
          assert.deepEqual(outcome.changedFiles, [], outcome.note);
          for (const [name, text] of Object.entries(files)) assert.equal(tree.read(name), text, `${name} untouched after: ${outcome.note}`);
          if (outcome.note.includes(', not from the registry;')) sealedOff++;
          continue;
        }
        fixedCount++;
        const originals = new Map(outcome.changedFiles.map((f) => [f, files[f] ?? null]));
        assert.deepEqual(await tree.verify([finding], outcome.changedFiles, originals), { stillDetected: [], unparsable: [] }, `${component.name}: ${outcome.note}`);
      }
      if (sealedOff) assert.equal(fixedCount, 0, 'a lock with a package from outside the registry is refused whole');
      else assert.ok(fixedCount >= components.length / 2, `only ${fixedCount} of ${components.length} fixed`);
    });
  }
});

describe('verification: the secrets fixer on every detector rule', () => {
  const rulesWithSamples = SECRET_RULES.map((rule) => ({ rule, sample: positiveSample(rule, 31) }));

  for (const [file, wrap] of [
    ['settings.py', (sample: string) => `CONFIG = """\n${sample}\n"""\n`],
    ['settings.js', (sample: string) => `export const config = \`\n${sample}\n\`;\n`],
  ] as const) {
    test(`${file}: each rule's sample inside a string literal moves to the environment and verifies clean`, async () => {
      for (const { rule, sample } of rulesWithSamples) {
        const text = wrap(sample);
        const match = detectSecrets(text).find((m) => m.rule.id === rule.id);
        assert.ok(match, `${rule.id} is detected inside the literal`);
        const tree = new Tree({ [file]: text });
        const finding = secretFinding(file, text, match.secret, rule.id);
        await tree.fix(finding);
        // A literal that is the credential moves as a whole; one holding more (`key = "…"`) keeps the rest around a lookup.
        const after = tree.read(file)!;
        assert.ok(!after.includes(match.secret), rule.id);
        // Either way the read is checked, so a missing variable stops the module naming it.
        assert.match(
          after,
          file.endsWith('.py')
            ? /^CONFIG = os\.environ\.get\("CONFIG"\)\nif not CONFIG:$|^([A-Z_][A-Z0-9_]*) = os\.environ\.get\("[A-Z_][A-Z0-9_]*"\)\nif not \1:\n[\s\S]*" \+ \1 \+ "/m
            : /^export const config = process\.env\.CONFIG;\nif \(!config\) throw|^const ([A-Z_][A-Z0-9_]*) = process\.env\.[A-Z_][A-Z0-9_]*;\nif \(!\1\) throw[\s\S]*\$\{\1\}/m,
          rule.id,
        );
        assert.deepEqual(await tree.verify([finding]), { stillDetected: [], unparsable: [] }, rule.id);
      }
    });
  }
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { KINDS } from '../../scripts/scaffold.ts';

// CONTRIBUTING.md's "how to add" sections, checked: for each kind, scripts/scaffold.ts writes a sample into a
// copy of the repository; the files it touched must be exactly those the section names (at most three), and
// the sample must be live, which a child process shows by importing the copy's registries.

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONTRIBUTING = fs.readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8');
/** What a sample needs of the repository; node_modules is linked, not copied. */
const COPIED = ['src', 'rules', 'test/support', 'test/fixtures/osv', 'test/fixes/codemods.test.ts', 'console/src/components/ui.tsx', 'scripts/scaffold.ts', 'scripts/docs-tables.ts', 'README.md', 'package.json', 'tsconfig.json'];

/** Each kind's sample name, and the body of a module run in the copy (its cwd) that throws unless the sample is live. */
const SAMPLES: Record<string, { name: string; live: string }> = {
  'scan-type': {
    name: 'license_scan',
    live: `
      const { SCAN_TYPES, scanTypeNamed, scanTypesOf } = await import('./src/scanning/scan-types/index.ts');
      const { VOCABULARY_SCHEMAS } = await import('./src/http/vocabulary.ts');
      assert.ok(SCAN_TYPES.includes('license_scan'), 'the registry lists it');
      assert.equal(scanTypeNamed('license_scan').quotaType, 'sast_scans');
      assert.ok(scanTypesOf('application').includes('license_scan') && VOCABULARY_SCHEMAS.ScanType.enum.includes('license_scan'), 'the API offers it');
      assert.ok(fs.readFileSync('README.md', 'utf8').includes('| \`license_scan\` |'), 'the README table lists it');`,
  },
  'code-host': {
    name: 'acmegit',
    live: `
      const { codeHostCalled } = await import('./src/code-hosts/index.ts');
      const { parseSourceSpec } = await import('./src/core/source-repos.ts');
      const { loadSettings } = await import('./src/config.ts');
      assert.equal(codeHostCalled('acmegit')?.label, 'Acmegit', 'the registry lists it');
      assert.equal(parseSourceSpec('acmegit:acme/api@main').provider, 'acmegit', 'sources name it');
      assert.equal(loadSettings({}).codeHosts.acmegit, 'https://acmegit.example', 'its API root is a setting');
      assert.ok(fs.readFileSync('README.md', 'utf8').includes('| Acmegit | \`acmegit:owner/name[@branch]\` |'), 'the README table lists it');
      const run = spawnSync(process.execPath, ['--test', 'test/pull-requests/pull-requests-acmegit.test.ts'], { encoding: 'utf8' });
      assert.equal(run.status, 0, 'its test opens a pull request: ' + run.stdout + run.stderr);`,
  },
  codemod: {
    name: 'verify-on',
    live: `
      const { codemodFor } = await import('./src/fixing/fixers/sast/codemods/index.ts');
      const { codemodFixer } = await import('./src/fixing/fixers/sast/codemod-fixer.ts');
      const { loadRuleSet } = await import('./src/scanning/sast/rule-set.ts');
      const { analyzeSource } = await import('./src/scanning/sast/sast-engine.ts');
      const rule = 'python.requests.tls.verify-disabled';
      assert.equal(codemodFor(rule)?.name, 'python/verify-on', 'the catalog has it for its rule');
      const text = 'requests.get(url, verify=False)\\n';
      const match = analyzeSource(loadRuleSet([]), 'python', text).find((m) => m.rule.id === rule);
      const dir = fs.mkdtempSync('codemod-');
      fs.writeFileSync(dir + '/client.py', text);
      const finding = { id: 'f1', scanType: 'semgrep_scan', checkId: rule, severity: 'medium', title: null, message: '', filePath: 'client.py',
        startLine: match.startLine, endLine: match.endLine, cwe: match.rule.cwe, metadata: {} };
      const outcome = await codemodFixer.apply(finding, { dir, signal: new AbortController().signal, step: async () => {} });
      assert.equal(outcome.fixed, true, outcome.note);
      assert.equal(fs.readFileSync(dir + '/client.py', 'utf8'), 'requests.get(url, verify=True)\\n');`,
  },
  status: {
    name: 'expired',
    live: `
      const { FIX_STATUS } = await import('./src/core/states/fix-status.ts');
      const { openStore } = await import('./src/store/database.ts');
      const { migrateToLatest } = await import('./src/store/migrate.ts');
      const { sql } = await import('kysely');
      assert.ok(FIX_STATUS.statuses.includes('expired') && FIX_STATUS.canMove('pending', 'expired'), 'the machine has it');
      const store = openStore({ databaseUrl: null, dataDir: fs.mkdtempSync('data-') });
      try {
        const { applied } = await migrateToLatest(store);
        assert.ok(applied.some((name) => name.endsWith('_fix_expired')), 'its migration runs: ' + applied.join(', '));
        const { rows } = await sql\`select sql from sqlite_master where name = 'fixes_status_check_insert'\`.execute(store.db);
        assert.match(rows[0].sql, /'expired'/, 'the database takes it');
      } finally {
        await store.close();
      }
      assert.match(fs.readFileSync('console/src/components/ui.tsx', 'utf8'), /\\n  expired: 'neutral',\\n/, 'the console gives it a tone');`,
  },
  'secret-rule': {
    name: 'acme-widget-token',
    live: `
      const { SECRET_RULES } = await import('./src/scanning/secrets/rules.ts');
      const { detectSecrets } = await import('./src/scanning/secrets/detector.ts');
      const { positiveSample } = await import('./test/support/secret-samples.ts');
      const rule = SECRET_RULES.find((r) => r.id === 'acme-widget-token');
      assert.ok(rule, 'the rule is in the catalog');
      const text = 'ACME = "' + positiveSample(rule, 7) + '"';
      assert.ok(detectSecrets(text).some((m) => m.rule.id === rule.id), 'the detector finds its sample in ' + text);`,
  },
  'sast-rule': {
    name: 'acme-eval',
    live: `
      const { loadRuleSet } = await import('./src/scanning/sast/rule-set.ts');
      const { analyzeSource } = await import('./src/scanning/sast/sast-engine.ts');
      const set = loadRuleSet([]);
      const rule = set.rules.find((r) => r.id === 'python.acme-eval.eval-of-input');
      assert.ok(rule, 'the rule set holds it');
      const hits = (snippet) => analyzeSource(set, 'python', snippet).filter((m) => m.rule.id === rule.id).length;
      for (const snippet of rule.tests.vulnerable) assert.ok(hits(snippet) > 0, snippet);
      for (const snippet of rule.tests.safe) assert.equal(hits(snippet), 0, snippet);`,
  },
  'lockfile-format': {
    name: 'acme-lock',
    live: `
      const { extractorFor } = await import('./src/inventory/extractors/index.ts');
      const { isLockfileName } = await import('./src/inventory/lockfiles.ts');
      assert.equal(extractorFor('app/acme.lock')?.id, 'acme-lock', 'the registry picks it for its file name');
      assert.ok(isLockfileName('acme.lock'), 'the scanners skip it as a lockfile');
      const run = spawnSync(process.execPath, ['--test', 'src/inventory/extractors/acme-lock/acme-lock.test.ts'], { encoding: 'utf8' });
      assert.equal(run.status, 0, 'its own test passes: ' + run.stdout + run.stderr);`,
  },
  ecosystem: {
    name: 'Acme',
    live: `
      const { ECOSYSTEMS, packageUrl } = await import('./src/inventory/component.ts');
      const { versionScheme } = await import('./src/osv/versions.ts');
      assert.ok(ECOSYSTEMS.includes('Acme'));
      assert.equal(packageUrl('Acme', 'widget', '1.0.0'), 'pkg:acme/widget@1.0.0');
      assert.ok(versionScheme('Acme').compare('1.0.0', '1.0.1') < 0, 'its versions are ordered');
      const records = fs.readdirSync('test/fixtures/osv').map((f) => JSON.parse(fs.readFileSync('test/fixtures/osv/' + f, 'utf8')));
      assert.ok(records.some((r) => r.affected.some((a) => a.package.ecosystem === 'Acme')), 'an OSV fixture record names it');`,
  },
  language: {
    name: 'acss',
    live: `
      const { RULE_LANGUAGES, parserFor } = await import('./src/languages/index.ts');
      const { loadRuleSet } = await import('./src/scanning/sast/rule-set.ts');
      const { analyzeSource } = await import('./src/scanning/sast/sast-engine.ts');
      assert.ok(RULE_LANGUAGES.includes('acss'), 'the registry lists it');
      assert.equal(parserFor('web/site.acss'), 'acss', 'its files reach its parser');
      const set = loadRuleSet([]);
      const rules = set.rules.filter((r) => r.language === 'acss');
      assert.ok(rules.length, 'its rule folder loads');
      for (const rule of rules) {
        const hits = (snippet) => analyzeSource(set, 'acss', snippet).filter((m) => m.rule.id === rule.id).length;
        for (const snippet of rule.tests.vulnerable) assert.ok(hits(snippet) > 0, snippet);
        for (const snippet of rule.tests.safe) assert.equal(hits(snippet), 0, snippet);
      }`,
  },
  'verify-provider': {
    name: 'acme',
    live: `
      const { providerForRule } = await import('./src/scanning/secrets/verify/providers.ts');
      const { secretsVerifyFromEnv } = await import('./src/scanning/secrets/verify/settings.ts');
      assert.equal(providerForRule('groq-api-key')?.id, 'acme', 'the provider checks its rule');
      const settings = secretsVerifyFromEnv({ BULWARK_SECRETS_VERIFY_URLS: JSON.stringify({ acme: 'http://127.0.0.1:9' }) });
      assert.equal(settings.urls.acme, 'http://127.0.0.1:9', 'its key is a setting');
      const readme = fs.readFileSync('README.md', 'utf8');
      assert.ok(readme.includes('| Acme |') && readme.includes('\`acme\`. An unknown key'), 'the README documents it');`,
  },
  'deep-check': {
    name: 'flask-debug',
    live: `
      const { checkPythonSources } = await import('./src/scanning/deep/application-checks.ts');
      const text = 'from flask import Flask\\napp = Flask(__name__)\\napp.run(host="0.0.0.0", debug=True)\\n';
      const { findings } = await checkPythonSources([{ path: 'app.py', text }]);
      assert.deepEqual(findings.map((f) => f.checkId + '@' + f.startLine), ['python.deep.config.flask-debug@3']);
      assert.ok(fs.readFileSync('README.md', 'utf8').includes('| \`python.deep.config.flask-debug\` |'), 'the README lists it');`,
  },
  error: {
    name: 'widget-held',
    live: `
      const { ERROR_CATALOG, errors } = await import('./src/core/errors.ts');
      assert.ok(ERROR_CATALOG.some((kind) => kind.code === 'WIDGET_HELD'), 'the catalog holds it');
      assert.deepEqual([errors.widgetHeld('w1').statusCode, errors.widgetHeld('w1').errorCode], [409, 'WIDGET_HELD']);
      // The check of test/http/error-catalog.test.ts: the README's Errors section has its row.
      const readme = fs.readFileSync('README.md', 'utf8');
      const section = readme.slice(readme.indexOf('### Errors'), readme.indexOf('\\n#', readme.indexOf('### Errors') + 1));
      assert.deepEqual(ERROR_CATALOG.filter((k) => !section.includes('| ' + k.statusCode + ' | \`' + k.code + '\` |')).map((k) => k.code), []);`,
  },
};

interface Section {
  title: string;
  text: string;
  /** The numbered list's paths: `<x>` stands for a name, a trailing `/` for a folder the addition owns. */
  files: string[];
}

/** The CONTRIBUTING.md section whose scaffold command names `kind`. */
function sectionFor(kind: string): Section | undefined {
  const sections = CONTRIBUTING.split(/^(?=### )/m).slice(1);
  const text = sections.find((s) => s.includes(`node scripts/scaffold.ts ${kind} `));
  if (!text) return undefined;
  return { title: text.slice(4, text.indexOf('\n')), text, files: [...text.matchAll(/^\d+\. `([^`]+)`/gm)].map((m) => m[1]!) };
}

const patternOf = (file: string) =>
  new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/<[^>]+>/g, '[^/]+')}${file.endsWith('/') ? '' : '$'}`);

/** Every file under `dir` (but node_modules) with a digest of its content. */
function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files.set(path.relative(dir, full).split(path.sep).join('/'), crypto.createHash('sha1').update(fs.readFileSync(full)).digest('hex'));
  }
  return files;
}

/** The README without what stands between generated-table markers. */
const handWritten = (readme: string) => readme.replace(/<!-- ([\w-]+):start[\s\S]*?<!-- \1:end -->/g, '');

/** Copies go to memory where Linux offers it: a copy on disk costs seconds of writes, one in /dev/shm milliseconds. */
const SCRATCH = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();

function copyRepository(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(SCRATCH, 'bulwark-contributing-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const part of COPIED) fs.cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

describe('CONTRIBUTING.md', () => {
  test('has one section with a scaffold command for each kind the scaffold writes, and a sample for each', () => {
    for (const kind of Object.keys(KINDS)) {
      assert.ok(sectionFor(kind), `no section runs node scripts/scaffold.ts ${kind}`);
      assert.ok(SAMPLES[kind], `no sample check for ${kind}`);
    }
    const commands = [...CONTRIBUTING.matchAll(/node scripts\/scaffold\.ts ([\w-]+) /g)].map((m) => m[1]!);
    assert.deepEqual(commands.filter((kind) => !KINDS[kind]), [], 'sections name kinds the scaffold does not know');
  });

  for (const [kind, sample] of Object.entries(SAMPLES)) {
    test(`${kind}: the scaffold touches exactly the files its section names, and the sample is live`, (t) => {
      const section = sectionFor(kind);
      assert.ok(section, `no section for ${kind}`);
      assert.ok(section.files.length >= 1 && section.files.length <= 3, `${section.title} names ${section.files.length} files`);

      const dir = copyRepository(t);
      const before = snapshot(dir);
      const readmeBefore = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
      const run = spawnSync(process.execPath, ['scripts/scaffold.ts', kind, sample.name], { cwd: dir, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      const afterwards = snapshot(dir);
      const touched = [...new Set([...before.keys(), ...afterwards.keys()])].filter((f) => before.get(f) !== afterwards.get(f)).sort();

      // The README's generated tables follow the registries; the section says to regenerate them.
      let written = touched;
      if (touched.includes('README.md') && !section.files.includes('README.md')) {
        assert.match(section.text, /npm run docs:tables/, `${section.title}: the README changed, and the section neither names it nor regenerates it`);
        assert.equal(handWritten(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')), handWritten(readmeBefore), 'only generated tables changed');
        written = touched.filter((f) => f !== 'README.md');
      }
      const patterns = section.files.map(patternOf);
      assert.deepEqual(written.filter((f) => !patterns.some((p) => p.test(f))), [], `${section.title}: files touched that the section does not name`);
      assert.deepEqual(section.files.filter((_, i) => !written.some((f) => patterns[i]!.test(f))), [], `${section.title}: files named that the sample leaves alone`);

      // A module file rather than --eval: worker threads (the SQLite store's) inherit the process's flags.
      const check = path.join(dir, 'live-check.mjs');
      fs.writeFileSync(check, `import assert from 'node:assert/strict'; import fs from 'node:fs'; import { spawnSync } from 'node:child_process';\n${sample.live}\n`);
      const live = spawnSync(process.execPath, [check], { cwd: dir, encoding: 'utf8' });
      assert.equal(live.status, 0, `${kind}: the sample is not live:\n${live.stderr}`);
    });
  }
});

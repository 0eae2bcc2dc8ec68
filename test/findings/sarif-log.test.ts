import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { repositoryPath } from '../../src/sarif/locations.ts';
import { readSarifLog, SarifLogError, severityOfScore, type SarifReadOptions } from '../../src/sarif/read-log.ts';
import { toolKey } from '../../src/sarif/tools.ts';
import { matchAcrossTools, ruleWords, type PlacedProblem } from '../../src/core/finding-identity.ts';

// Reading other tools' SARIF logs into findings, without a database: what each result becomes, what is
// skipped and why, and which logs are refused whole.

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/sarif');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.sarif`), 'utf8'));
const ALL_TYPES: SarifReadOptions['scanTypes'] = ['secrets_scan', 'semgrep_scan', 'deep_ai_scan', 'sbom_scan'];
const read = (log: unknown, options: Partial<SarifReadOptions> = {}) => readSarifLog(log, { importId: 'imp', scanTypes: ALL_TYPES, maxResults: 1000, ...options });

/** A one-run log of `tool` holding `results`, its rules defined by id. */
function logOf(results: unknown[], tool = 'Scanner', extra: Record<string, unknown> = {}) {
  return { version: '2.1.0', runs: [{ tool: { driver: { name: tool, rules: [] } }, results, ...extra }] };
}

const at = (uri: string, line = 1, more: Record<string, unknown> = {}) => ({
  ruleId: 'R1',
  message: { text: 'm' },
  locations: [{ physicalLocation: { artifactLocation: { uri, ...more }, region: { startLine: line } } }],
});

describe('reading SARIF logs', () => {
  test("each tool's documented output reads into findings with the tool's rule, severity, place and scan type", () => {
    const codeql = read(fixture('codeql'));
    assert.equal(codeql.tool.name, 'CodeQL');
    assert.equal(codeql.category, 'language:python', "the category is automationDetails.id up to its last '/'");
    assert.equal(codeql.sighter, 'sarif:codeql#language:python');
    assert.deepEqual(
      codeql.findings.map((f) => [f.checkId, f.scanType, f.severity, f.filePath, f.startLine, f.cwe]),
      [
        ['codeql/py/sql-injection', 'semgrep_scan', 'high', 'app.py', 13, ['CWE-89']],
        ['codeql/py/reflective-xss', 'semgrep_scan', 'medium', 'app.py', 20, ['CWE-79', 'CWE-116']],
        ['codeql/py/flask-debug', 'semgrep_scan', 'high', 'app.py', 24, ['CWE-215', 'CWE-489']],
      ],
    );
    const sqli = codeql.findings[0];
    assert.equal(sqli.message, 'This SQL query depends on a user-provided value.', 'embedded links read as their text');
    assert.equal(sqli.title, 'SQL query built from user-controlled sources', 'the rule comes from the extension the result names');
    const sarif = sqli.metadata.sarif as Record<string, unknown>;
    assert.deepEqual(sarif.partial_fingerprints, { primaryLocationLineHash: '8c31b0e35d7b9a4f:1', primaryLocationStartColumnFingerprint: '12' });
    assert.deepEqual(sarif.related_locations, [{ path: 'app.py', start_line: 10, message: 'user-provided value' }]);
    assert.equal(sqli.metadata.tool, 'CodeQL');

    const semgrep = read(fixture('semgrep'));
    assert.equal(semgrep.tool.key, 'semgrep', "Semgrep OSS is Semgrep's key");
    assert.deepEqual(semgrep.findings[0].cwe, ["CWE-89: Improper Neutralization of Special Elements used in an SQL Command ('SQL Injection')"]);
    assert.deepEqual(semgrep.findings[0].owasp, ['A01:2017 - Injection', 'A03:2021 - Injection']);
    assert.equal(semgrep.findings[0].snippet, '    cur.execute(query)');
    assert.equal(semgrep.findings[0].severity, 'high', "the rule's default level error");

    const bandit = read(fixture('bandit'));
    assert.deepEqual(bandit.findings.map((f) => [f.checkId, f.severity, f.startLine, f.cwe]), [
      ['bandit/B608', 'medium', 11, ['CWE-89']],
      ['bandit/B201', 'high', 24, ['CWE-94']],
    ]);

    const eslint = read(fixture('eslint'), { sourceRoot: '/home/ci/work/shop' });
    assert.deepEqual(eslint.findings.map((f) => [f.checkId, f.filePath, f.startLine]), [
      ['eslint/no-eval', 'web/src/render.js', 3],
      ['eslint/no-implied-eval', 'web/src/timers.js', 7],
    ]);
    const unrooted = read(fixture('eslint'));
    assert.equal(unrooted.findings.length, 0, 'absolute file URIs without a root are outside the repository');
    assert.equal(unrooted.skipped, 2);
    assert.match(unrooted.warnings.join('\n'), /2 results skipped: an absolute path outside the repository \(first: file:\/\/\/home\/ci\/work\/shop\/web\/src\/render\.js\)/);

    const gitleaks = read(fixture('gitleaks'));
    assert.deepEqual(gitleaks.findings.map((f) => [f.checkId, f.scanType, f.filePath, f.startLine]), [
      ['gitleaks/aws-access-token', 'secrets_scan', 'config/settings.py', 4],
      ['gitleaks/generic-api-key', 'secrets_scan', '.env', 2],
    ]);
    for (const finding of gitleaks.findings) {
      assert.ok(!JSON.stringify(finding).includes('AKIAZ7QF3RMX2PLKW5TN'), 'the secret is never kept in clear');
      assert.ok(!JSON.stringify(finding).includes('q8vN3rT1xZ6wK0pL5sY9bF2hJ7dM4cG'));
    }
    assert.equal(gitleaks.findings[0].snippet, 'AKIA********TN');

    const trivy = read(fixture('trivy'));
    assert.deepEqual(trivy.findings.map((f) => [f.checkId, f.scanType, f.severity, f.filePath]), [
      ['trivy/CVE-2023-30861', 'sbom_scan', 'high', 'requirements.txt'],
      ['trivy/CVE-2023-32681', 'sbom_scan', 'medium', 'requirements.txt'],
      ['trivy/DS002', 'semgrep_scan', 'high', 'Dockerfile'],
      ['trivy/aws-access-key-id', 'secrets_scan', 'critical', 'config/settings.py'],
    ]);
    const flask = trivy.findings[0];
    assert.deepEqual(flask.cvss, { baseScore: 7.5, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', severity: 'high' });
    assert.equal(flask.category, 'dependency');
    assert.equal(flask.metadata.package, 'flask');
    assert.equal(flask.metadata.installed_version, '2.2.2');
    assert.equal(flask.metadata.ecosystem, 'PyPI');
    assert.equal(trivy.findings[1].metadata.fixed_version, '2.31.0');
    assert.equal(flask.sourceUrl, 'https://avd.aquasec.com/nvd/cve-2023-30861');
  });

  test('severity: security-severity as GitHub code scanning ranks it, else the level', () => {
    assert.deepEqual([9.0, 8.9, 7.0, 6.9, 4.0, 3.9, 0].map(severityOfScore), ['critical', 'high', 'high', 'medium', 'medium', 'low', 'low']);
    const levels = read(logOf([
      { ...at('a.py'), level: 'error' },
      { ...at('a.py'), level: 'warning' },
      { ...at('a.py'), level: 'note' },
      { ...at('a.py') },
      { ...at('a.py'), level: 'note', properties: { 'security-severity': '9.1' } },
    ]));
    assert.deepEqual(levels.findings.map((f) => f.severity), ['high', 'medium', 'low', 'medium', 'critical']);
  });

  test('locations: relative, through relative bases only, and absolute ones under a root', () => {
    const bases = { SRC: { uri: 'src/', uriBaseId: 'ROOT' }, ROOT: { uri: 'file:///work/repo/' }, UP: { uri: '../' } };
    const roots = ['/work/repo'];
    const cases: [Record<string, unknown>, string][] = [
      [{ uri: 'app.py' }, 'app.py'],
      [{ uri: './lib//util.py' }, 'lib/util.py'],
      [{ uri: 'a%20b.py' }, 'a b.py'],
      [{ uri: 'main.py', uriBaseId: 'SRC' }, 'src/main.py'],
      [{ uri: 'main.py', uriBaseId: 'ROOT' }, 'main.py'],
      [{ uri: 'main.py', uriBaseId: '%SRCROOT%' }, 'main.py'],
      [{ uri: 'file:///work/repo/pkg/x.go' }, 'pkg/x.go'],
      [{ uri: '/work/repo/pkg/x.go' }, 'pkg/x.go'],
    ];
    for (const [location, expected] of cases) assert.deepEqual(repositoryPath(location, bases, roots), { path: expected }, JSON.stringify(location));
    const refused: Record<string, unknown>[] = [
      { uri: '/etc/passwd' },
      { uri: 'file:///etc/passwd' },
      { uri: 'file:///work/repo/../etc/passwd' },
      { uri: 'file:///work/repository/x.py' },
      { uri: '../secrets.txt' },
      { uri: 'a/../../b' },
      { uri: '%2e%2e/%2e%2e/etc/passwd' },
      { uri: 'x.py', uriBaseId: 'UP' },
      { uri: 'https://example.com/x.py' },
      { uri: 'file://otherhost/work/repo/x.py' },
      { uri: 'C:\\Windows\\win.ini' },
      { uri: 'bad%zz.py' },
      { uri: 'a\u0000b.py' },
      { uri: '' },
      {},
    ];
    for (const location of refused) assert.ok('refused' in repositoryPath(location, bases, roots), JSON.stringify(location));
    assert.deepEqual(repositoryPath({ uri: 'file:///C:/work/repo/src/x.cs' }, {}, ['c:/work/repo']), { path: 'src/x.cs' });
  });

  test('a log that is not SARIF 2.1.0 of one tool is refused whole, saying where', () => {
    const refusals: [unknown, (string | number)[]][] = [
      ['not a log', []],
      [{ version: '2.0.0', runs: [] }, ['version']],
      [{ version: '2.1.0' }, ['runs']],
      [{ version: '2.1.0', runs: [] }, ['runs']],
      [{ version: '2.1.0', runs: [42] }, ['runs', 0]],
      [{ version: '2.1.0', runs: [{ tool: { driver: {} }, results: [] }] }, ['runs', 0, 'tool', 'driver', 'name']],
      [{ version: '2.1.0', runs: [{ tool: { driver: { name: 'A' } }, results: {} }] }, ['runs', 0, 'results']],
      [{ version: '2.1.0', runs: [{ tool: { driver: { name: 'A' } }, results: [] }, { tool: { driver: { name: 'B' } }, results: [] }] }, ['runs', 1, 'tool', 'driver', 'name']],
    ];
    for (const [log, loc] of refusals) {
      assert.throws(() => read(log), (error: unknown) => error instanceof SarifLogError && JSON.stringify(error.loc) === JSON.stringify(loc), JSON.stringify(log));
    }
  });

  test('results that cannot be findings are skipped and counted, the rest read', () => {
    const reading = read(
      logOf([
        at('ok.py', 3),
        { ...at('ok.py'), ruleId: undefined },
        { ...at('ok.py'), kind: 'pass' },
        { ...at('ok.py'), suppressions: [{ kind: 'inSource' }] },
        { ...at('ok.py'), suppressions: [{ kind: 'external', status: 'rejected' }] },
        { ...at('ok.py'), baselineState: 'absent' },
        { ruleId: 'R1', message: { text: 'no place' } },
        at('/etc/passwd'),
        at('../../x'),
        'not an object',
        { ...at('big.py'), message: { text: 'x'.repeat(100_000) } },
        { ...at('ok.py'), ruleId: 'r'.repeat(500) },
      ]),
    );
    assert.equal(reading.results, 12);
    assert.deepEqual(reading.findings.map((f) => f.filePath), ['ok.py', 'ok.py', 'big.py'], 'a rejected suppression does not hide a result');
    assert.equal(reading.skipped, 9);
    assert.ok(reading.findings[2].message.length <= 4000);
    const warnings = reading.warnings.join('\n');
    for (const reason of ['no rule id', 'not a problem', 'suppressed', 'marked absent', 'no file location', 'outside the repository', 'leaves the repository', 'not a JSON object', 'rule id longer', 'message longer than 4000 characters was cut']) {
      assert.ok(warnings.includes(reason), `${reason} in ${warnings}`);
    }
    assert.equal(reading.complete, true, 'skipped results leave an import complete');
  });

  test('beyond the bound the least severe results are left out and the reading is partial', () => {
    const results = Array.from({ length: 50 }, (_, i) => ({ ...at(`f${i}.py`), level: 'note' }));
    results.push({ ...at('severe.py'), level: 'error' });
    const reading = read(logOf(results), { maxResults: 10 });
    assert.equal(reading.findings.length, 10);
    assert.ok(reading.findings.some((f) => f.filePath === 'severe.py'));
    assert.equal(reading.complete, false);
    assert.equal(reading.skipped, 41);
    assert.match(reading.warnings[0], /^partial result: the log holds 51 results to import and at most 10 are imported at once/);
    assert.equal(read(logOf([at('a.py')], 'X', { results: undefined })).complete, false, 'a run without results says nothing about what is gone');
  });

  test('message strings, credentials in messages, and rules found by id', () => {
    const log = logOf([{ ruleId: 'T1', message: { id: 'default', arguments: ['token', 'config.py'] }, locations: at('config.py').locations }], 'Tool');
    (log.runs[0].tool.driver as Record<string, unknown>).rules = [{ id: 'T1', messageStrings: { default: { text: 'Found {0} in {1}.' } } }];
    assert.equal(read(log).findings[0].message, 'Found token in config.py.');
    const token = `ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`;
    const leaky = read(logOf([{ ...at('a.py'), message: { text: `Leaked ${token} here` } }]));
    assert.ok(!leaky.findings[0].message.includes(token), leaky.findings[0].message);
    assert.equal(toolKey('Semgrep Pro'), 'semgrep');
    assert.equal(toolKey('  My Tool!  '), 'my-tool');
  });

  test('one problem across tools: same file, overlapping lines and a CWE or a rule family in common', () => {
    const problem = (over: Partial<PlacedProblem>): PlacedProblem => ({
      kind: 'code', filePath: 'app.py', startLine: 10, endLine: 12, cwes: [], ruleWords: [], advisories: [], ...over,
    });
    const stored = [
      { id: 'sqli', ...problem({ cwes: ['89'], ruleWords: ruleWords('python.lang.sqli.string-built-query') }) },
      { id: 'dep', ...problem({ kind: 'dependencies', filePath: 'requirements.txt', startLine: 3, endLine: 3, advisories: ['GHSA-M2QF-HXJV-5GPQ', 'CVE-2023-30861'] }) },
      { id: 'secret', ...problem({ kind: 'secrets', filePath: '.env', startLine: 2, endLine: 2 }) },
    ];
    const matched = matchAcrossTools(stored, [
      problem({ cwes: ['89'], startLine: 12, endLine: 12 }),
      problem({ cwes: ['79'], startLine: 11, endLine: 11 }),
      problem({ kind: 'dependencies', filePath: 'requirements.txt', startLine: 1, endLine: 1, advisories: ['CVE-2023-30861'] }),
      problem({ kind: 'secrets', filePath: '.env', startLine: 2, endLine: 2 }),
      problem({ cwes: ['89'], filePath: 'other.py' }),
      problem({ ruleWords: ruleWords('semgrep/python.django.security.injection.sql.sql-injection', ['semgrep']), startLine: 10, endLine: 10 }),
    ]);
    assert.deepEqual(matched, ['sqli', undefined, 'dep', 'secret', undefined, undefined], 'each stored finding pairs once');
    assert.deepEqual(ruleWords('codeql/py/sql-injection', ['codeql']), ['sql', 'injection']);
  });
});

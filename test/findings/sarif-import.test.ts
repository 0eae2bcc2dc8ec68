import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Unit } from '../../src/core/units.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { expectApiError, expectStatus, expectValidationError, scanRepository } from '../support/helpers.ts';
import { TestRepo } from '../support/git-repo.ts';

// Findings of other tools imported from their SARIF logs: one import is one scan by that tool of one source
// repository, so its findings have identity, lifecycle, triage and events as Bulwark's own, and a problem
// Bulwark also reports is one finding seen by both.

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/sarif');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.sarif`), 'utf8'));
const COMMIT = '3f786850e387550fdab836ed7e6dc881de23001b';
const NEXT_COMMIT = '9c1185a5c5e9fc54612808977ee8f548b2258d31';

type Finding = Record<string, any>;

/** The app the CodeQL, Semgrep and Bandit fixtures report on (their lines are this file's). */
const APP = `import sqlite3

from flask import Flask, request

app = Flask(__name__)


@app.route("/user")
def user():
    uid = request.args.get("id")
    query = "SELECT * FROM users WHERE id = '%s'" % uid
    cur = sqlite3.connect("app.db").cursor()
    cur.execute(query)
    return str(cur.fetchall())


@app.route("/hello")
def hello():
    name = request.args.get("name", "")
    return "<p>Hello " + name + "</p>"


if __name__ == "__main__":
    app.run(debug=True)
`;

/** The CodeQL log after `shift` lines were added above everything, without the results of `dropped` rules. */
function codeqlLater(shift: number, dropped: string[] = []) {
  const log = fixture('codeql');
  const run = log.runs[0];
  run.results = run.results.filter((r: Finding) => !dropped.includes(r.ruleId));
  for (const result of run.results) result.locations[0].physicalLocation.region.startLine += shift;
  return log;
}

function harnessCalls(h: Harness) {
  const base = (unit: Unit, collection = 'repositories') => `/api/v1/${collection}/${unit.id}`;
  return {
    importLog: (unit: Unit, sarif: unknown, extra: Record<string, unknown> = {}, collection = 'repositories') =>
      h.call('POST', `${base(unit, collection)}/sarif-imports`, { body: { sarif, commit_sha: COMMIT, ...extra } }),
    imported: async (unit: Unit, sarif: unknown, extra: Record<string, unknown> = {}) =>
      expectStatus(await h.call('POST', `${base(unit)}/sarif-imports`, { body: { sarif, commit_sha: COMMIT, ...extra } }), 201),
    findings: async (unit: Unit, query = '') =>
      (expectStatus(await h.call('GET', `${base(unit)}/findings?limit=200${query}`), 200) as { items: Finding[]; total: number }).items,
    events: async (findingId: string) =>
      (expectStatus(await h.call('GET', `/api/v1/finding-events?finding_id=${findingId}&limit=50`), 200) as { items: Finding[] }).items,
    triage: async (unit: Unit, findingId: string, status: string) =>
      expectStatus(await h.call('PATCH', `${base(unit)}/findings/${findingId}`, { body: { status } }), 200),
  };
}

const byRule = (items: Finding[], checkId: string) => {
  const found = items.filter((f) => f.check_id === checkId);
  assert.equal(found.length, 1, `one ${checkId} in ${JSON.stringify(items.map((f) => f.check_id))}`);
  return found[0];
};

describe('SARIF import', () => {
  let h: Harness;
  let org: TestOrg;
  let calls: ReturnType<typeof harnessCalls>;
  let counter = 0;

  before(async () => {
    h = await createHarness();
    org = await h.org('sarif-import');
    calls = harnessCalls(h);
  });
  after(() => h.close());

  const newUnit = (sources = 1) =>
    h.unit(org, Array.from({ length: sources }, (_, i) => `github:acme/shop-${++counter}-${i}@main`), `shop-${counter}`);

  /** Every row an import could write, for proving that a refused one wrote nothing. */
  async function rows() {
    const db = h.database.store.db;
    const count = async (table: 'findings' | 'finding_events' | 'sarif_imports' | 'finding_aliases') =>
      Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    return { findings: await count('findings'), events: await count('finding_events'), imports: await count('sarif_imports'), aliases: await count('finding_aliases') };
  }

  test("each tool's log becomes findings with its scan type, severity, place and tool", async () => {
    const unit = await newUnit();
    const answers: Record<string, Finding> = {};
    for (const tool of ['codeql', 'semgrep', 'bandit', 'gitleaks', 'trivy']) answers[tool] = await calls.imported(unit, fixture(tool), { branch: 'main' });
    answers.eslint = await calls.imported(unit, fixture('eslint'), { source_root: 'file:///home/ci/work/shop/' });
    assert.deepEqual(
      Object.fromEntries(Object.entries(answers).map(([tool, a]) => [tool, [a.tool, a.created, a.updated, a.resolved, a.skipped]])),
      {
        codeql: ['CodeQL', 3, 0, 0, 0],
        semgrep: ['Semgrep OSS', 2, 0, 0, 0],
        bandit: ['Bandit', 2, 0, 0, 0],
        gitleaks: ['gitleaks', 2, 0, 0, 0],
        trivy: ['Trivy', 4, 0, 0, 0],
        eslint: ['ESLint', 2, 0, 0, 0],
      },
    );
    const codeql = answers.codeql;
    assert.equal(codeql.repository_id, unit.id);
    assert.equal(codeql.category, 'language:python');
    assert.equal(codeql.source_repository, unit.sources[0].full_name);
    assert.equal(codeql.commit_sha, COMMIT);
    assert.equal(codeql.branch, 'main');
    assert.deepEqual(codeql.warnings, []);

    const items = await calls.findings(unit);
    assert.equal(items.length, 15, 'other tools report the same problems under rules of their own: each tool keeps its findings');
    const sqli = byRule(items, 'codeql/py/sql-injection');
    assert.equal(sqli.scan_type, 'semgrep_scan');
    assert.deepEqual(sqli.detected_by, ['semgrep_scan']);
    assert.equal(sqli.tool, 'CodeQL');
    assert.equal(sqli.severity, 'high');
    assert.equal(sqli.status, 'open');
    assert.equal(sqli.file_path, 'app.py');
    assert.equal(sqli.start_line, 13);
    assert.equal(sqli.commit_sha, COMMIT);
    assert.equal(sqli.source_repo, unit.sources[0].full_name);
    assert.deepEqual(sqli.cwe, ['CWE-89']);
    assert.equal(sqli.scan_batch_id, null);
    assert.equal(sqli.title, 'SQL query built from user-controlled sources');

    const secret = byRule(items, 'gitleaks/aws-access-token');
    assert.equal(secret.scan_type, 'secrets_scan');
    assert.equal(secret.tool, 'gitleaks');
    assert.equal(secret.snippet, 'AKIA********TN');
    const vulnerable = byRule(items, 'trivy/CVE-2023-30861');
    assert.equal(vulnerable.scan_type, 'sbom_scan');
    assert.equal(vulnerable.cvss_base_score, 7.5);
    assert.equal(vulnerable.file_path, 'requirements.txt');
    assert.equal(byRule(items, 'trivy/DS002').scan_type, 'semgrep_scan', "Trivy's misconfigurations are code findings");
    assert.equal(byRule(items, 'trivy/aws-access-key-id').severity, 'critical');
    assert.equal(byRule(items, 'eslint/no-eval').file_path, 'web/src/render.js');

    const dependencies = await calls.findings(unit, '&scan_type=sbom_scan');
    assert.deepEqual(dependencies.map((f) => f.check_id).sort(), ['trivy/CVE-2023-30861', 'trivy/CVE-2023-32681']);
    assert.equal((await calls.findings(unit, '&scan_type=secrets_scan')).length, 3);

    const [detected] = await calls.events(sqli.id);
    assert.equal(detected.event_type, 'detected');
    assert.deepEqual(detected.metadata, { sarif_import_id: codeql.import_id, tool: 'CodeQL' });
  });

  test('a re-import resolves what the tool no longer reports, keeps triage of the rest, and leaves other tools alone', async () => {
    const unit = await newUnit();
    await calls.imported(unit, fixture('codeql'));
    await calls.imported(unit, fixture('semgrep'));
    const first = await calls.findings(unit);
    const sqli = byRule(first, 'codeql/py/sql-injection');
    await calls.triage(unit, sqli.id, 'false_positive');
    const xss = byRule(first, 'codeql/py/reflective-xss');
    await calls.triage(unit, xss.id, 'needs_manual_review');
    const debug = byRule(first, 'codeql/py/flask-debug');
    const semgrepBefore = first.filter((f) => f.tool === 'Semgrep OSS');

    // Two lines added above everything, and the debug flag gone.
    const again = await calls.imported(unit, codeqlLater(2, ['py/flask-debug']), { commit_sha: NEXT_COMMIT });
    assert.deepEqual([again.created, again.updated, again.resolved], [0, 2, 1]);
    const later = await calls.findings(unit);
    assert.equal(later.length, first.length, 'no finding was added');
    assert.deepEqual(
      [byRule(later, 'codeql/py/sql-injection')].map((f) => [f.id, f.status, f.start_line, f.commit_sha]),
      [[sqli.id, 'false_positive', 15, NEXT_COMMIT]],
    );
    assert.equal(byRule(later, 'codeql/py/reflective-xss').status, 'needs_manual_review');
    const gone = byRule(later, 'codeql/py/flask-debug');
    assert.equal(gone.id, debug.id);
    assert.equal(gone.status, 'resolved');
    const resolvedEvents = (await calls.events(debug.id)).filter((e) => e.event_type === 'resolved_auto');
    assert.equal(resolvedEvents.length, 1);
    assert.equal(resolvedEvents[0].metadata.sarif_import_id, again.import_id);
    assert.deepEqual(
      later.filter((f) => f.tool === 'Semgrep OSS').map((f) => [f.id, f.status, f.last_detected_at]),
      semgrepBefore.map((f) => [f.id, f.status, f.last_detected_at]),
      "another tool's findings are untouched",
    );

    // Reported again: the same finding reopens.
    const back = await calls.imported(unit, codeqlLater(2));
    assert.deepEqual([back.created, back.updated, back.resolved], [0, 3, 0]);
    assert.equal(byRule(await calls.findings(unit), 'codeql/py/flask-debug').status, 'open');
    assert.deepEqual((await calls.events(debug.id)).map((e) => e.event_type).sort(), ['detected', 'reopened', 'resolved_auto']);

    // A log of the tool that found nothing resolves all it reported; a run without a results list resolves nothing.
    const silent = fixture('codeql');
    delete silent.runs[0].results;
    const unknown = await calls.imported(unit, silent);
    assert.equal(unknown.resolved, 0);
    assert.match(unknown.warnings.join('\n'), /partial result: a run holds no "results" list/);
    silent.runs[0].results = [];
    assert.equal((await calls.imported(unit, silent)).resolved, 2, 'a false positive stays one');
    const end = await calls.findings(unit);
    assert.deepEqual(
      end.filter((f) => f.tool === 'CodeQL').map((f) => [f.check_id, f.status]).sort(),
      [['codeql/py/flask-debug', 'resolved'], ['codeql/py/reflective-xss', 'resolved'], ['codeql/py/sql-injection', 'false_positive']],
    );
    // Reported again, a finding keeps the review it was waiting for.
    await calls.imported(unit, fixture('codeql'));
    assert.equal(byRule(await calls.findings(unit), 'codeql/py/reflective-xss').status, 'needs_manual_review');
  });

  test('a category keeps imports of one tool apart', async () => {
    const unit = await newUnit();
    await calls.imported(unit, fixture('codeql'));
    const javascript = fixture('codeql');
    javascript.runs[0].automationDetails = { id: '/language:javascript/' };
    javascript.runs[0].results = [];
    assert.equal((await calls.imported(unit, javascript)).resolved, 0);
    assert.equal((await calls.imported(unit, { ...javascript, runs: [{ ...javascript.runs[0], automationDetails: undefined }] }, { category: 'language:python' })).resolved, 3);
  });

  test('an application names the source repository; dependency results are left to the repositories route', async () => {
    const unit = await newUnit(2);
    expectValidationError(await calls.importLog(unit, fixture('trivy'), {}, 'applications'), ['body', 'source_repository'], 'missing');
    expectValidationError(await calls.importLog(unit, fixture('trivy'), { source_repository: 'acme/elsewhere' }, 'applications'), ['body', 'source_repository'], 'value_error');
    const second = unit.sources[1].full_name;
    const answer = expectStatus(await calls.importLog(unit, fixture('trivy'), { source_repository: second }, 'applications'), 201);
    assert.equal(answer.application_id, unit.id);
    assert.deepEqual([answer.created, answer.skipped], [2, 2]);
    assert.match(answer.warnings.join('\n'), /2 results skipped: sbom_scan findings are not taken here/);
    const items = await calls.findings(unit);
    assert.ok(items.every((f) => f.source_repo === second));
    const viaRepositories = await calls.imported(unit, fixture('trivy'), { source_repository: `github:${second}` });
    assert.deepEqual([viaRepositories.created, viaRepositories.updated], [2, 2]);
  });

  test('a body that is not one SARIF 2.1.0 log is refused with 422 and changes nothing', async () => {
    const unit = await newUnit();
    await calls.imported(unit, fixture('codeql'));
    const before = await rows();
    const url = `/api/v1/repositories/${unit.id}/sarif-imports`;
    const mixed = fixture('codeql');
    mixed.runs.push(fixture('semgrep').runs[0]);
    const refusals: [unknown, (string | number)[], string][] = [
      [{ commit_sha: COMMIT }, ['body', 'sarif'], 'missing'],
      [{ sarif: 'not a log', commit_sha: COMMIT }, ['body', 'sarif'], 'sarif_log'],
      [{ sarif: [fixture('codeql')], commit_sha: COMMIT }, ['body', 'sarif'], 'sarif_log'],
      [{ sarif: { ...fixture('codeql'), version: '2.0.0' }, commit_sha: COMMIT }, ['body', 'sarif', 'version'], 'sarif_log'],
      [{ sarif: { version: '2.1.0', runs: [] }, commit_sha: COMMIT }, ['body', 'sarif', 'runs'], 'sarif_log'],
      [{ sarif: { version: '2.1.0', runs: [{ tool: { driver: {} }, results: [] }] }, commit_sha: COMMIT }, ['body', 'sarif', 'runs', 0, 'tool', 'driver', 'name'], 'sarif_log'],
      [{ sarif: { version: '2.1.0', runs: [{ tool: { driver: { name: 'X' } }, results: 'none' }] }, commit_sha: COMMIT }, ['body', 'sarif', 'runs', 0, 'results'], 'sarif_log'],
      [{ sarif: mixed, commit_sha: COMMIT }, ['body', 'sarif', 'runs', 1, 'tool', 'driver', 'name'], 'sarif_log'],
      [{ sarif: fixture('codeql') }, ['body', 'commit_sha'], 'missing'],
      [{ sarif: fixture('codeql'), commit_sha: 'main' }, ['body', 'commit_sha'], 'value_error'],
      [{ sarif: fixture('codeql'), commit_sha: COMMIT, source_repository: 'acme/unknown' }, ['body', 'source_repository'], 'value_error'],
    ];
    for (const [body, loc, type] of refusals) expectValidationError(await h.call('POST', url, { body }), loc, type);
    const malformed = await h.call('POST', url, { body: '{"sarif": {"version": "2.1.0", "runs": [' });
    assert.equal(malformed.statusCode, 422);
    const version = (expectStatus(await h.call('POST', url, { body: { sarif: { ...fixture('codeql'), version: '2.0.0' }, commit_sha: COMMIT } }), 422) as { detail: Finding[] }).detail[0];
    assert.equal(version.input, '2.0.0');
    assert.match(version.msg, /only SARIF 2\.1\.0/);
    assert.deepEqual(await rows(), before);
  });

  test('scope, organization and size', async () => {
    const unit = await newUnit();
    const reader = await h.key(org, ['read']);
    expectApiError(await h.call('POST', `/api/v1/repositories/${unit.id}/sarif-imports`, { key: reader.key, body: { sarif: fixture('codeql'), commit_sha: COMMIT } }), 403, 'INSUFFICIENT_SCOPE');
    const other = await h.org('sarif-other');
    expectApiError(await h.call('POST', `/api/v1/repositories/${unit.id}/sarif-imports`, { key: other.key, body: { sarif: fixture('codeql'), commit_sha: COMMIT } }), 404, 'NOT_FOUND');
    const huge = { version: '2.1.0', runs: [{ tool: { driver: { name: 'Big' } }, results: [], properties: { padding: 'x'.repeat(21 * 1024 * 1024) } }] };
    expectApiError(await calls.importLog(unit, huge), 413, 'PAYLOAD_TOO_LARGE');
    // Beyond the server's usual 1 MiB: the route's own limit.
    const large = fixture('codeql');
    large.runs[0].properties = { padding: 'x'.repeat(3 * 1024 * 1024) };
    assert.equal((await calls.imported(unit, large)).created, 3);
  });

  test('hostile results are skipped with warnings and the rest imported', async () => {
    const unit = await newUnit();
    const result = (uri: string, extra: Record<string, unknown> = {}) => ({
      ruleId: 'H1',
      level: 'error',
      message: { text: 'bad' },
      locations: [{ physicalLocation: { artifactLocation: { uri, ...extra }, region: { startLine: 2 } } }],
    });
    const token = `ghp_${'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa'}`;
    const log = {
      version: '2.1.0',
      runs: [
        {
          tool: { driver: { name: 'Hostile' } },
          originalUriBaseIds: { UP: { uri: '../../' }, SRC: { uri: 'src/' } },
          results: [
            result('/etc/passwd'),
            result('file:///etc/shadow'),
            result('../../../etc/passwd'),
            result('%2e%2e/%2e%2e/etc/passwd'),
            result('x.py', { uriBaseId: 'UP' }),
            result('https://evil.example/x.py'),
            result('ok.py', { uriBaseId: 'SRC' }),
            { ...result('long.py'), message: { text: `${'A'.repeat(200_000)} ${token}` } },
            { ...result('leak.py'), message: { text: `token ${token} committed` }, locations: [{ physicalLocation: { artifactLocation: { uri: 'leak.py' }, region: { startLine: 1, snippet: { text: `TOKEN = "${token}"` } } } }] },
          ],
        },
      ],
    };
    const answer = await calls.imported(unit, log);
    assert.deepEqual([answer.results, answer.created, answer.skipped], [9, 3, 6]);
    const warnings = answer.warnings.join('\n');
    assert.match(warnings, /2 results skipped: an absolute path outside the repository \(first: \/etc\/passwd\)/);
    assert.match(warnings, /3 results skipped: the path leaves the repository/);
    assert.match(warnings, /1 result skipped: a https: URI is not a file of the repository/);
    assert.match(warnings, /1 message longer than 4000 characters was cut/);
    const items = await calls.findings(unit);
    assert.deepEqual(items.map((f) => f.file_path).sort(), ['leak.py', 'long.py', 'src/ok.py']);
    assert.ok(items.every((f) => f.message.length <= 4000));
    assert.ok(!JSON.stringify(items).includes(token), 'credentials in messages and snippets are masked');
    const stored = await h.database.store.db.selectFrom('findings').select(['message', 'snippet', 'metadata']).where('unit_id', '=', unit.id).execute();
    assert.ok(!JSON.stringify(stored).includes(token));
  });

  test('100,000 results: the most severe 20,000 are imported, with a warning, and nothing is resolved', { timeout: 300_000 }, async () => {
    const unit = await newUnit();
    const result = (i: number, level: string) => ({
      ruleId: `rule-${i % 50}`,
      level,
      message: { text: `finding ${i}` },
      locations: [{ physicalLocation: { artifactLocation: { uri: `src/m${i % 1000}.js` }, region: { startLine: 1 + Math.floor(i / 1000) } } }],
    });
    const earlier = await calls.imported(unit, { version: '2.1.0', runs: [{ tool: { driver: { name: 'Flood' } }, results: [result(0, 'note')] }] });
    assert.equal(earlier.created, 1);
    const results = Array.from({ length: 100_000 }, (_, i) => result(i + 1, i === 99_999 ? 'error' : 'note'));
    const answer = await calls.imported(unit, { version: '2.1.0', runs: [{ tool: { driver: { name: 'Flood' } }, results }] });
    assert.deepEqual([answer.results, answer.created, answer.skipped, answer.resolved], [100_000, 20_000, 80_000, 0]);
    assert.match(answer.warnings[0], /^partial result: the log holds 100000 results to import and at most 20000 are imported at once/);
    const severe = await calls.findings(unit, '&severity=high');
    assert.deepEqual(severe.map((f) => f.message), ['finding 100000'], 'the most severe result is among those kept');
    const first = (await h.call('GET', `/api/v1/repositories/${unit.id}/findings?limit=1&status=resolved`)).json();
    assert.equal(first.total, 0, 'a partial import resolves nothing');
  });
});

describe("SARIF import beside Bulwark's own scans", () => {
  let h: Harness;
  let org: TestOrg;
  let calls: ReturnType<typeof harnessCalls>;
  const repos: TestRepo[] = [];
  let counter = 0;

  before(async () => {
    h = await createHarness({ scanning: true });
    org = await h.org('sarif-beside');
    calls = harnessCalls(h);
  });
  after(async () => {
    await h.close();
    for (const repo of repos) repo.remove();
  });

  async function shop() {
    const repo = TestRepo.create();
    repos.push(repo);
    const commit = repo.commit({ 'app.py': APP }, 'shop');
    const unit = await h.unit(org, [`github:acme/beside-${++counter}@main`], `beside-${counter}`, [repo.url]);
    return { repo, unit, commit };
  }

  async function scan(unit: Unit) {
    const { progress } = await scanRepository(h, unit.id, 'semgrep_scan');
    assert.equal(progress.status, 'completed', progress.error_message ?? '');
  }

  const BULWARK_RULES = ['python.flask.config.debug-enabled', 'python.lang.sqli.string-built-query', 'python.lang.xss.response-from-request'];

  test("a problem Bulwark found is one finding seen by both; the tool's re-import no longer seeing it leaves it to Bulwark", async () => {
    const { unit, commit } = await shop();
    await scan(unit);
    const scanned = await calls.findings(unit);
    assert.deepEqual(scanned.map((f) => f.check_id).sort(), BULWARK_RULES);
    const sqli = byRule(scanned, 'python.lang.sqli.string-built-query');
    await calls.triage(unit, sqli.id, 'needs_manual_review');

    const answer = await calls.imported(unit, fixture('codeql'), { commit_sha: commit });
    assert.deepEqual([answer.created, answer.updated], [0, 3], 'each CodeQL result is a problem Bulwark reports on the same lines with the same CWE');
    const merged = await calls.findings(unit);
    assert.deepEqual(merged.map((f) => [f.check_id, f.tool, f.detected_by]).sort(), BULWARK_RULES.map((r) => [r, 'Bulwark', ['semgrep_scan']]));
    assert.equal(byRule(merged, 'python.lang.sqli.string-built-query').status, 'needs_manual_review');
    const seenBy = async (id: string) =>
      JSON.parse((await h.database.store.db.selectFrom('findings').select('seen_by').where('id', '=', id).executeTakeFirstOrThrow()).seen_by);
    assert.deepEqual(Object.keys(await seenBy(sqli.id)).sort(), ['sarif:codeql#language:python', 'semgrep_scan']);

    // Re-imported after code was added above: the same three findings, still known by CodeQL's own identity.
    assert.deepEqual(pick(await calls.imported(unit, codeqlLater(3), { commit_sha: commit })), [0, 3, 0]);
    const without = await calls.imported(unit, codeqlLater(0, ['py/sql-injection']), { commit_sha: commit });
    assert.deepEqual(pick(without), [0, 2, 0], 'Bulwark still sees it: nothing resolves');
    assert.equal(byRule(await calls.findings(unit), 'python.lang.sqli.string-built-query').status, 'needs_manual_review');
    assert.deepEqual(Object.keys(await seenBy(sqli.id)), ['semgrep_scan']);
  });

  test("a problem imported first is found by Bulwark's scan as the same finding, which it describes once the tool no longer reports it", async () => {
    const { unit, commit } = await shop();
    const answer = await calls.imported(unit, fixture('codeql'), { commit_sha: commit });
    assert.equal(answer.created, 3);
    const imported = await calls.findings(unit);
    const sqli = byRule(imported, 'codeql/py/sql-injection');
    await calls.triage(unit, sqli.id, 'false_positive');

    await scan(unit);
    const both = await calls.findings(unit);
    assert.equal(both.length, 3, 'no duplicate of what CodeQL reported');
    assert.deepEqual(both.map((f) => [f.tool, f.scan_type, f.detected_by]), imported.map(() => ['CodeQL', 'semgrep_scan', ['semgrep_scan']]));
    assert.equal(byRule(both, 'codeql/py/sql-injection').status, 'false_positive');

    // CodeQL no longer reports anything: Bulwark's scan still sees the three, which stay open, and describes them from its next scan.
    const nothing = fixture('codeql');
    nothing.runs[0].results = [];
    assert.equal((await calls.imported(unit, nothing, { commit_sha: commit })).resolved, 0);
    await scan(unit);
    const described = await calls.findings(unit);
    assert.deepEqual(described.map((f) => [f.check_id, f.tool]).sort(), BULWARK_RULES.map((r) => [r, 'Bulwark']));
    assert.equal(byRule(described, 'python.lang.sqli.string-built-query').id, sqli.id);
    assert.equal(byRule(described, 'python.lang.sqli.string-built-query').status, 'false_positive');

    // CodeQL reporting them again finds the same findings under the rules it knows them by.
    assert.deepEqual(pick(await calls.imported(unit, fixture('codeql'), { commit_sha: commit })), [0, 3, 0]);
    assert.equal((await calls.findings(unit)).length, 3);
  });
});

const pick = (answer: Finding) => [answer.created, answer.updated, answer.resolved];

// `node scripts/scaffold.ts <kind> <name>` writes a small working sample of one extension point, into only
// the files CONTRIBUTING.md names for it, so that a newcomer sees each change made; test/codebase/
// contributing.test.ts runs it on a copy of the repository and checks the sample is live. Kinds: see KINDS.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.join(import.meta.dirname, '..');

const file = (relative: string) => path.join(ROOT, relative);
const read = (relative: string) => fs.readFileSync(file(relative), 'utf8');
function write(relative: string, text: string): void {
  fs.mkdirSync(path.dirname(file(relative)), { recursive: true });
  fs.writeFileSync(file(relative), text);
}

/** `relative` with `text` put before the last occurrence of `anchor` (or after it, with `after`). */
function insert(relative: string, anchor: string | RegExp, text: string, where: 'before' | 'after' = 'before'): void {
  const source = read(relative);
  const pattern = typeof anchor === 'string' ? new RegExp(anchor.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g') : new RegExp(anchor.source, `${anchor.flags.replace('g', '')}g`);
  const matches = [...source.matchAll(pattern)];
  const last = matches.at(-1);
  if (!last) throw new Error(`${relative}: no ${anchor} to write beside`);
  const at = where === 'before' ? last.index : last.index + last[0].length;
  write(relative, source.slice(0, at) + text + source.slice(at));
}

/** After the last import line of a module. */
const addImport = (relative: string, line: string) => insert(relative, /^import [^\n]*\n/m, `${line}\n`, 'after');

/** The row of a Markdown table: after the last row of the table whose header line is `header`. */
function addTableRow(relative: string, header: string, row: string): void {
  const source = read(relative);
  const start = source.indexOf(`${header}\n`);
  if (start < 0) throw new Error(`${relative}: no table headed ${header}`);
  let end = start;
  while (source.startsWith('|', end)) end = source.indexOf('\n', end) + 1;
  write(relative, `${source.slice(0, end)}${row}\n${source.slice(end)}`);
}

const camel = (kebab: string) => kebab.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const words = (kebab: string) => kebab.split('-').map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' ');
const KEBAB = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

interface Kind {
  /** What `name` must look like. */
  name: RegExp;
  write(name: string): void | Promise<void>;
  /** The README's generated tables change with it (scripts/docs-tables.ts rewrites them after). */
  regenerates?: boolean;
}

export const KINDS: Record<string, Kind> = {
  'scan-type': {
    name: /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*_scan$/,
    regenerates: true,
    write(type) {
      const base = type.replace(/_scan$/, '');
      const descriptor = `${camel(base.replace(/_/g, '-'))}Scan`;
      insert('src/scanning/scan-type-names.ts', '] as const;', `, '${type}'`);
      write(`src/scanning/scan-types/${base.replace(/_/g, '-')}.ts`, [
        "import type { ScanTypeDescriptor } from './descriptor.ts';",
        '',
        `export const ${descriptor}: ScanTypeDescriptor<'${type}'> = {`,
        `  name: '${type}',`,
        "  summary: 'the licenses of the dependencies, checked against the organization\\'s policy',",
        "  families: ['repository', 'application'],",
        "  quotaType: 'sast_scans',",
        '  // No engine on this build yet: a batch of this type fails at once and its credit is returned.',
        '  engine: null,',
        '  // Its findings cannot be fixed until it has an engine; whatever a fix did, they are still there.',
        '  stillDetected: async () => async () => true,',
        '};',
        '',
      ].join('\n'));
      addImport('src/scanning/scan-types/index.ts', `import { ${descriptor} } from './${base.replace(/_/g, '-')}.ts';`);
      insert('src/scanning/scan-types/index.ts', /\] as const;\n\ntype NamesOf/, `, ${descriptor}`);
    },
  },

  'code-host': {
    name: /^[a-z][a-z0-9_]*$/,
    regenerates: true,
    write(name) {
      const label = words(name.replace(/_/g, '-'));
      const env = `BULWARK_${name.toUpperCase()}_URL`;
      write(`src/code-hosts/${name.replace(/_/g, '-')}.ts`, [
        "import { isoTimestamp, refusal, splitFullName, unreachable, type CodeHost } from './code-host.ts';",
        '',
        `// ${label}: pull requests through its REST API (POST /api/v1/repos/{owner}/{repo}/pulls), with fetch.`,
        '',
        `export const ${camel(name.replace(/_/g, '-'))}: CodeHost<'${name}'> = {`,
        `  name: '${name}',`,
        `  label: '${label}',`,
        '  aliases: [],',
        "  repository: { segments: 2, form: 'owner/name' },",
        `  examples: [{ spec: '${name}:acme/api@main', fullName: 'acme/api', cloneUrl: 'https://${name}.example/acme/api.git' }],`,
        `  urls: (fullName) => ({ cloneUrl: \`https://${name}.example/\${fullName}.git\`, htmlUrl: \`https://${name}.example/\${fullName}\` }),`,
        "  gitTokenUser: 'oauth2',",
        `  api: { env: '${env}', default: 'https://${name}.example', description: '${label} root URL (a self-hosted instance\\'s)' },`,
        "  pullRequests: { noun: 'pull request', maxBodyLength: 65_536 },",
        '',
        '  async connect({ url, timeoutMs = 60_000 }) {',
        '    return {',
        `      provider: '${name}',`,
        '      async openPullRequest(request) {',
        `        const [owner, repo] = splitFullName(${camel(name.replace(/_/g, '-'))}, request.fullName);`,
        '        let response: Response;',
        '        try {',
        '          response = await fetch(`${url}/api/v1/repos/${owner}/${repo}/pulls`, {',
        "            method: 'POST',",
        "            headers: { authorization: `token ${request.token}`, 'content-type': 'application/json' },",
        '            body: JSON.stringify({ head: request.branch, base: request.baseBranch, title: request.title, body: request.body }),',
        '            signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(request.signal ? [request.signal] : [])]),',
        '          });',
        '        } catch (error) {',
        `          throw unreachable(${camel(name.replace(/_/g, '-'))}, url, (error as Error).message, request.token);`,
        '        }',
        '        const data = (await response.json().catch(() => ({}))) as { number?: number; html_url?: string; message?: string; created_at?: string };',
        `        if (!response.ok || typeof data.number !== 'number') throw refusal(${camel(name.replace(/_/g, '-'))}, response.status, data.message ?? '', request.token);`,
        "        return { number: data.number, url: data.html_url ?? '', mergeStatus: 'unknown', createdAt: isoTimestamp(data.created_at) };",
        '      },',
        '    };',
        '  },',
        '};',
        '',
      ].join('\n'));
      addImport('src/code-hosts/index.ts', `import { ${camel(name.replace(/_/g, '-'))} } from './${name.replace(/_/g, '-')}.ts';`);
      insert('src/code-hosts/index.ts', /\] as const;\n\nexport type CodeHostName/, `, ${camel(name.replace(/_/g, '-'))}`);
      write(`test/pull-requests/pull-requests-${name.replace(/_/g, '-')}.test.ts`, [
        "import assert from 'node:assert/strict';",
        "import http from 'node:http';",
        "import type { AddressInfo } from 'node:net';",
        "import { test } from 'node:test';",
        `import { ${camel(name.replace(/_/g, '-'))} } from '../../src/code-hosts/${name.replace(/_/g, '-')}.ts';`,
        '',
        `test('${label}: the pull request is opened through its API with the token, and a refusal says why', async () => {`,
        '  const seen: { path?: string; authorization?: string; body?: Record<string, unknown> } = {};',
        '  const server = http.createServer(async (req, res) => {',
        '    let text = \'\';',
        '    for await (const chunk of req) text += chunk;',
        '    Object.assign(seen, { path: req.url, authorization: req.headers.authorization, body: JSON.parse(text) });',
        "    const ok = req.headers.authorization === 'token t0k3n';",
        "    res.writeHead(ok ? 201 : 401, { 'content-type': 'application/json' });",
        "    res.end(JSON.stringify(ok ? { number: 7, html_url: 'https://host.example/acme/api/pulls/7', created_at: '2026-01-02T03:04:05Z' } : { message: 'bad token' }));",
        '  });',
        "  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));",
        '  try {',
        `    const client = await ${camel(name.replace(/_/g, '-'))}.connect({ url: \`http://127.0.0.1:\${(server.address() as AddressInfo).port}\` });`,
        "    const request = { fullName: 'acme/api', baseBranch: 'main', branch: 'bulwark/fix-1', title: 'Fix', body: 'Body', token: 't0k3n' };",
        '    const opened = await client.openPullRequest(request);',
        "    assert.deepEqual(opened, { number: 7, url: 'https://host.example/acme/api/pulls/7', mergeStatus: 'unknown', createdAt: '2026-01-02T03:04:05.000Z' });",
        "    assert.equal(seen.path, '/api/v1/repos/acme/api/pulls');",
        "    assert.deepEqual(seen.body, { head: 'bulwark/fix-1', base: 'main', title: 'Fix', body: 'Body' });",
        `    await assert.rejects(client.openPullRequest({ ...request, token: 'other' }), /${label} refused the pull request \\(401\\): bad token/);`,
        '  } finally {',
        '    server.close();',
        '  }',
        '});',
        '',
      ].join('\n'));
    },
  },

  codemod: {
    name: KEBAB,
    write(name) {
      const codemod = `python${camel(`-${name}`)}`;
      write(`src/fixing/fixers/sast/codemods/python/${name}.ts`, [
        "import { fieldOf } from '../../../shared/syntax.ts';",
        "import { refuse, type Codemod } from '../codemod.ts';",
        "import { replace } from '../edit-kit.ts';",
        '',
        '// verify=False → verify=True: the HTTP client checks the server\'s certificate again.',
        '',
        `export const ${codemod}: Codemod = {`,
        `  name: 'python/${name}',`,
        "  rules: ['python.requests.tls.verify-disabled'],",
        '  rewrite({ node }) {',
        "    const value = node && fieldOf(node, 'value');",
        "    if (!value || value.text() !== 'False') return refuse('verify is not set to the literal False here');",
        '    return {',
        "      edits: [replace(value, 'True')],",
        "      note: 'Turned certificate verification on; a server with a self-signed certificate needs its CA bundle passed as verify=.',",
        '    };',
        '  },',
        '};',
        '',
      ].join('\n'));
      addImport('src/fixing/fixers/sast/codemods/index.ts', `import { ${codemod} } from './python/${name}.ts';`);
      insert('src/fixing/fixers/sast/codemods/index.ts', '];', `  ${codemod},\n`);
      const tests = 'test/fixes/codemods.test.ts';
      write(tests, `${read(tests)}
describe('python/${name}', () => {
  test('verify=False → True: the same request is made, the certificate checked', () =>
    fixes('web/client.py', 'requests.get(url, verify=False)\\n', 'python.requests.tls.verify-disabled',
      'requests.get(url, verify=True)\\n'));
});
`);
    },
  },

  status: {
    name: /^[a-z][a-z_]*$/,
    async write(status) {
      const machine = 'src/core/states/fix-status.ts';
      const { FIX_STATUS } = await import(pathToFileURL(file(machine)).href);
      const before: string[] = [...FIX_STATUS.statuses];
      write(machine, read(machine)
        .replace(/(export type FixStatus = [^;]*)/, `$1 | '${status}'`)
        .replace(/( {2}pending: \[[^\]]*)\]/, `$1, '${status}']`)
        .replace(/\n\}\);\n/, `\n  ${status}: [],\n});\n`));
      const last = fs.readdirSync(file('src/store/migrations')).map((f) => Number(/^(\d{3})_/.exec(f)?.[1] ?? 0)).reduce((a, b) => Math.max(a, b), 0);
      write(`src/store/migrations/${String(last + 1).padStart(3, '0')}_fix_${status}.ts`, [
        "import { PostgresAdapter, sql, type Kysely } from 'kysely';",
        '',
        `/** The fix statuses before and after this migration (src/core/states/fix-status.ts), copied, never imported. */`,
        `const BEFORE = ${JSON.stringify(before).replace(/"/g, "'").replace(/,/g, ', ')};`,
        `const AFTER = [...BEFORE, '${status}'];`,
        '',
        'const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;',
        '',
        '/** The database takes exactly `statuses` in fixes.status: its CHECK on PostgreSQL, its triggers on SQLite (see 006). */',
        'async function allow(db: Kysely<any>, statuses: readonly string[]): Promise<void> {',
        '  const list = sql.join(statuses.map((s) => sql.lit(s)));',
        '  if (isPostgres(db)) {',
        '    await sql`alter table fixes drop constraint if exists fixes_status_check`.execute(db);',
        '    await sql`alter table fixes add constraint fixes_status_check check (status in (${list}))`.execute(db);',
        '    return;',
        '  }',
        "  for (const event of ['insert', 'update']) {",
        '    await sql`drop trigger if exists ${sql.id(`fixes_status_check_${event}`)}`.execute(db);',
        "    await sql`create trigger ${sql.id(`fixes_status_check_${event}`)} before ${sql.raw(event === 'insert' ? 'insert' : 'update of status')} on fixes",
        "      when new.status not in (${list})",
        "      begin select raise(abort, ${sql.lit(`fixes.status must be one of ${statuses.join(', ')}`)}); end`.execute(db);",
        '  }',
        '}',
        '',
        'export async function up(db: Kysely<any>): Promise<void> {',
        '  await allow(db, AFTER);',
        '}',
        '',
        'export async function down(db: Kysely<any>): Promise<void> {',
        '  await allow(db, BEFORE);',
        '}',
        '',
      ].join('\n'));
      insert('console/src/components/ui.tsx', /\n};\n\nexport function Badge/, `\n  ${status}: 'neutral',`);
    },
  },

  'secret-rule': {
    name: KEBAB,
    write(id) {
      const prefix = `${id.replace(/-/g, '').slice(0, 8)}_`;
      insert('src/scanning/secrets/rules/saas.ts', '];',
        `  token('${id}', '${words(id)}', 'high', ['${prefix}'], '${prefix}[A-Za-z0-9]{32}', '${prefix}{a:32}'),\n`);
    },
  },

  'sast-rule': {
    name: KEBAB,
    write(family) {
      write(`rules/sast/python/${family}.yml`, [
        'language: python',
        'rules:',
        `  - id: python.${family}.eval-of-input`,
        '    message: Text typed at a prompt is run as Python code. Parse the value (int(), json.loads()) instead of evaluating it.',
        '    severity: high',
        '    confidence: high',
        '    category: injection',
        `    cwe: ["CWE-95: Improper Neutralization of Directives in Dynamically Evaluated Code ('Eval Injection')"]`,
        '    owasp: ["A03:2021 - Injection"]',
        '    references: [https://cwe.mitre.org/data/definitions/95.html]',
        '    rule:',
        '      pattern: eval(input($$$))',
        '    tests:',
        '      vulnerable:',
        '        - |',
        '          eval(input("> "))',
        '      safe:',
        '        - |',
        '          int(input("> "))',
        '',
      ].join('\n'));
    },
  },

  'lockfile-format': {
    name: KEBAB,
    regenerates: true,
    write(id) {
      const base = id.replace(/-lock$/, '');
      const extractor = `${camel(id)}Extractor`;
      const folder = `src/inventory/extractors/${id}`;
      write(`${folder}/${id}.ts`, [
        "import { component, type Component } from '../../component.ts';",
        "import { LOCKFILES } from '../../lockfiles.ts';",
        "import { ExtractError, type Extractor } from '../extractor.ts';",
        '',
        `// ${base}.lock: one \`name@version\` a line.`,
        '',
        `export const ${extractor}: Extractor = {`,
        `  id: '${id}',`,
        "  ecosystem: 'npm',",
        `  docs: '\`${base}.lock\`',`,
        `  fileNames: LOCKFILES['${id}'],`,
        '  lockfile: true,',
        '  extract(file) {',
        '    const components: Component[] = [];',
        "    file.text.split('\\n').forEach((line, index) => {",
        '      if (!line.trim()) return;',
        "      const at = line.lastIndexOf('@');",
        '      if (at <= 0) throw new ExtractError(file.path, `line ${index + 1} is not name@version`);',
        "      components.push(component({ name: line.slice(0, at), version: line.slice(at + 1).trim(), ecosystem: 'npm', direct: null, sourceFile: file.path }));",
        '    });',
        '    return components;',
        '  },',
        '};',
        '',
      ].join('\n'));
      write(`${folder}/${id}.test.ts`, [
        "import assert from 'node:assert/strict';",
        "import path from 'node:path';",
        "import { test } from 'node:test';",
        "import { extract, fixture, summarize } from '../testing.ts';",
        `import { ${extractor} } from './${id}.ts';`,
        '',
        "const TESTDATA = path.join(import.meta.dirname, 'testdata');",
        '',
        `test('${base}.lock: every line a locked package', async () => {`,
        `  const components = await extract(${extractor}, '${base}.lock', fixture(TESTDATA, '${base}.lock'));`,
        "  assert.deepEqual(summarize(components), [{ name: '@acme/ui', version: '2.0.1', direct: null }, { name: 'left-pad', version: '1.3.0', direct: null }]);",
        '});',
        '',
      ].join('\n'));
      write(`${folder}/testdata/${base}.lock`, 'left-pad@1.3.0\n@acme/ui@2.0.1\n');
      addImport('src/inventory/extractors/index.ts', `import { ${extractor} } from './${id}/${id}.ts';`);
      insert('src/inventory/extractors/index.ts', '];', `  ${extractor},\n`);
      insert('src/inventory/lockfiles.ts', '} as const', `  '${id}': ['${base}.lock'],\n`);
    },
  },

  ecosystem: {
    name: /^[A-Za-z][A-Za-z0-9.]*$/,
    write(name) {
      insert('src/inventory/component.ts', '  // No OSV data under these names', `  '${name}',\n`);
      const key = /^[A-Za-z_]\w*$/.test(name) ? name : `'${name}'`;
      insert('src/inventory/component.ts', /\n};\n\n\/\*\* Splits a name/, `\n  ${key}: '${name.toLowerCase()}',`);
      insert('src/osv/versions.ts', /\n};\n\nexport function versionScheme/, `\n  ${key}: SEMVER_SCHEME,`);
      const taken = new Set(fs.readdirSync(file('test/fixtures/osv')));
      let n = 9001;
      while (taken.has(`CVE-2099-${n}.json`)) n++;
      const record = {
        schema_version: '1.6.0',
        id: `CVE-2099-${n}`,
        modified: '2099-01-15T00:00:00Z',
        published: '2099-01-10T00:00:00Z',
        summary: `A made-up advisory for tests of ${name} packages`,
        affected: [{ package: { ecosystem: name, name: 'fixture-widget' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.0.1' }] }] }],
      };
      write(`test/fixtures/osv/CVE-2099-${n}.json`, `${JSON.stringify(record, null, 2)}\n`);
    },
  },

  language: {
    name: /^[a-z][a-z0-9]*$/,
    write(id) {
      write(`src/languages/${id}.ts`, [
        "import { Lang } from '@ast-grep/napi';",
        "import type { Language } from './language.ts';",
        '',
        `/** Stylesheets read as ${id}: ast-grep's built-in CSS grammar, so no grammar package is needed. */`,
        `export const ${id}: Language<'${id}', '${id}'> = {`,
        `  id: '${id}',`,
        `  parsers: { ${id}: { extensions: ['${id}'], astGrep: Lang.Css } },`,
        '};',
        '',
      ].join('\n'));
      const index = 'src/languages/index.ts';
      addImport(index, `import { ${id} } from './${id}.ts';`);
      insert(index, /\];(?=\n\nexport const RULE_LANGUAGES)/, `, ${id}`);
      insert(index, /;\n\n\/\*\* A parser name/, ` | '${id}'`);
      insert(index, /;\n\n(?:\/\*\*[^\n]*\*\/\n)?export type Language\b/, ` | '${id}'`);
      write(`rules/sast/${id}/legacy.yml`, [
        `language: ${id}`,
        'rules:',
        `  - id: ${id}.legacy.expression-property`,
        '    message: A CSS expression() runs script in old Internet Explorer; a value that reaches it from user data is cross-site scripting.',
        '    severity: medium',
        '    confidence: medium',
        '    category: xss',
        `    cwe: ["CWE-79: Improper Neutralization of Input During Web Page Generation ('Cross-site Scripting')"]`,
        '    owasp: ["A03:2021 - Injection"]',
        '    references: [https://cwe.mitre.org/data/definitions/79.html]',
        '    rule:',
        '      kind: call_expression',
        '      regex: ^expression\\(',
        '    tests:',
        '      vulnerable:',
        '        - |',
        '          a { width: expression(document.body.clientWidth + "px"); }',
        '      safe:',
        '        - |',
        '          a { width: calc(100% - 2px); }',
        '',
      ].join('\n'));
    },
  },

  'verify-provider': {
    name: /^[a-z][a-z0-9_]*$/,
    write(id) {
      insert('src/scanning/secrets/verify/providers.ts', /\];\n\nconst BY_RULE/, `  simpleBearer('${id}', '${words(id)}', ['groq-api-key'], '/openai/v1/models', [401]),\n`);
      insert('src/scanning/secrets/verify/settings.ts', /};\n\nexport const DEFAULT_VERIFY_SETTINGS/, `  ${id}: 'https://api.${id}.example',\n`);
      insert('README.md', '. An unknown key or a non-http(s) URL is refused at start', `, \`${id}\``);
      addTableRow('README.md', '| Provider | Rules | Call |', `| ${words(id)} | Groq API keys | \`GET /openai/v1/models\` |`);
    },
  },

  'deep-check': {
    name: KEBAB,
    write(name) {
      const check = camel(name);
      write(`src/scanning/deep/checks/${name}.ts`, [
        "import { CWE, endLineOf, lineOf, type Candidate, type FileContext } from './shared.ts';",
        '',
        '// A Flask application run with its debugger on, which lets anyone who reaches it run code.',
        '',
        `export function ${check}({ file, root }: FileContext): Candidate[] {`,
        "  if (!file.code.includes('debug')) return [];",
        "  return root.findAll({ rule: { pattern: '$APP.run($$$ARGS)', regex: 'debug\\\\s*=\\\\s*True' } } as never).map((call) => ({",
        '    finding: {',
        `      checkId: 'python.deep.config.${name}',`,
        "      severity: 'high',",
        "      category: 'config',",
        '      cwe: [CWE[209]],',
        "      title: 'Application run with its debugger on',",
        "      message: 'The application runs with debug=True: its interactive debugger runs code for anyone who reaches an error page. Turn it off outside development.',",
        '      path: file.path,',
        '      startLine: lineOf(call),',
        '      endLine: endLineOf(call),',
        '      text: call.text(),',
        '    },',
        '  }));',
        '}',
        '',
      ].join('\n'));
      addImport('src/scanning/deep/application-checks.ts', `import { ${check} } from './checks/${name}.ts';`);
      insert('src/scanning/deep/application-checks.ts', /\];\nconst JS_FILE_CHECKS/, `, ${check}`);
      addTableRow('README.md', '| check | CWE | reports |', `| \`python.deep.config.${name}\` | 209 | a Flask application run with \`debug=True\` |`);
    },
  },

  error: {
    name: KEBAB,
    write(name) {
      const code = name.toUpperCase().replace(/-/g, '_');
      insert('src/core/errors.ts', '} satisfies Record<string, ErrorKind<any>>;',
        `  /** A widget another request holds. */\n  ${camel(name)}: defineError('${code}', 409, (widget: string) => \`Widget \${widget} is held by another request\`),\n`);
      insert('README.md', /\n\| 413 \| `PAYLOAD_TOO_LARGE`/, `\n| 409 | \`${code}\` | a widget another request holds; retry once it is done |`);
    },
  },
};

if (import.meta.main) {
  const [kind, name] = process.argv.slice(2);
  const chosen = kind ? KINDS[kind] : undefined;
  if (!chosen || !name) {
    console.error(`usage: node scripts/scaffold.ts <kind> <name>; kinds: ${Object.keys(KINDS).join(', ')}`);
    process.exit(2);
  }
  if (!chosen.name.test(name)) {
    console.error(`a ${kind}'s name looks like ${chosen.name}`);
    process.exit(2);
  }
  await chosen.write(name);
  if (chosen.regenerates) {
    const { README, withDocTables } = await import('./docs-tables.ts');
    fs.writeFileSync(README, withDocTables(fs.readFileSync(README, 'utf8')));
  }
  console.log(`wrote a sample ${kind} named ${name}; see CONTRIBUTING.md for what each file holds`);
}

import module from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadSettings } from '../config.ts';
import { ROLES } from '../core/roles.ts';
import { SCOPES } from '../core/scopes.ts';
import { SEVERITIES } from '../core/severity.ts';
import { runnableScanTypes } from '../scanning/engines.ts';
import type { CliContext } from './context.ts';
import { UsageError } from './output.ts';

const USAGE = `bulwark — security scanning, findings triage and autofix service

Usage: bulwark <command> [options]        (every admin command takes --json and --data-dir DIR)

  serve [--host H] [--port P] [--no-worker]        start the API server (migrates first); --no-worker: API only
  worker                                           run scan jobs only (any number, on any machine)
  migrate                                          bring the database schema up to date
  org create --name NAME [--slug SLUG]             create an organization
  org list
  key create --org ORG --name NAME [--scopes ${SCOPES.join(',')}]
                                                   create an API key; the key is printed once
  key list --org ORG
  key revoke KEY_ID_OR_PREFIX
  user create --email EMAIL --password-env VAR [--org ORG --role ${ROLES.join('|')}] [--name NAME]
                                                   create a console user (the password is read from VAR)
  user list
  user disable EMAIL [--enable]                    disable a user and end their sessions (or enable again)
  repo add --org ORG --source provider:owner/name[@branch] [--name NAME] [--clone-url URL] [--token-env VAR]
  repo list --org ORG
  repo archive ID [--unarchive]
  repo token set ID [--source provider:owner/name] [--token-env VAR]
                                                   store or replace a source repository's access token (read from
                                                   VAR, or piped on stdin; never an argument); --source picks one
                                                   source of an application (app token set is the same)
  repo token remove ID [--source provider:owner/name]
  app add --org ORG --name NAME --source SPEC [--source SPEC …] [--clone-url URL …] [--token-env VAR …]
  quota show --org ORG
  quota set --org ORG [--period monthly|weekly|daily] [--prs N] [--sast-scans N] [--deep-ai-scans N]
            [--topup-prs N] [--topup-sast-scans N] [--topup-deep-ai-scans N] [--max-repositories N|unlimited]
  osv import PATH                                  load OSV vulnerability records (a directory of JSON, or all.zip
                                                   exports) for sbom scans; safe to run again with newer exports
  osv sync [--ecosystems npm,PyPI,…]               download OSV records (BULWARK_OSV_URL; only what changed since the
                                                   last sync); default: every ecosystem the SBOM extractors read
  sarif-import FILE (--repository ID | --application ID) --commit SHA [--source-repository NAME] [--branch NAME]
       [--category NAME] [--root DIR]              import another tool's SARIF 2.1.0 log (CodeQL, Semgrep, Trivy…)
                                                   as one scan by that tool of the repository at that commit;
                                                   absolute file locations are read relative to --root (default .)
  scan DIR --type ${runnableScanTypes().map((t) => t.replace(/_scan$/, '')).join('|')} [--format table|json|sarif|semgrep-json|cyclonedx]
       [--fail-on ${SEVERITIES.join('|')}] [--output FILE] [--history-depth N] [--verify] [--baseline REF]
                                                   scan a local folder (with its git history when it is a work
                                                   tree); no server; sbom reads OSV records from the database if
                                                   one exists; cyclonedx prints the SBOM; progress on stderr when
                                                   it is a terminal; --verify (secrets) asks each credential's
                                                   provider whether it is live (valid ones rank critical);
                                                   --baseline REF (a branch, tag or commit of the folder's git
                                                   repository) scans REF's tree too and reports, counts and fails
                                                   on only the findings REF does not have (a finding whose lines
                                                   moved or whose file was renamed is not new)

Exit codes: 0 success (for scan: nothing at or above --fail-on), 1 findings at or above --fail-on (with
--baseline: new ones), 2 usage error (unknown option, bad value, missing or wrong argument), 3 runtime error.

Environment: DATABASE_URL (PostgreSQL; default embedded SQLite), BULWARK_DATA_DIR, HOST, PORT, LOG_LEVEL,
BULWARK_ENCRYPTION_KEY, BULWARK_PUBLIC_URL.`;

const OPTIONS = {
  json: { type: 'boolean' },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  'no-worker': { type: 'boolean' },
  host: { type: 'string' },
  port: { type: 'string' },
  name: { type: 'string' },
  slug: { type: 'string' },
  org: { type: 'string' },
  scopes: { type: 'string' },
  source: { type: 'string', multiple: true },
  'clone-url': { type: 'string', multiple: true },
  'token-env': { type: 'string', multiple: true },
  description: { type: 'string' },
  unarchive: { type: 'boolean' },
  period: { type: 'string' },
  prs: { type: 'string' },
  'sast-scans': { type: 'string' },
  'deep-ai-scans': { type: 'string' },
  'topup-prs': { type: 'string' },
  'topup-sast-scans': { type: 'string' },
  'topup-deep-ai-scans': { type: 'string' },
  'max-repositories': { type: 'string' },
  type: { type: 'string' },
  format: { type: 'string' },
  'fail-on': { type: 'string' },
  output: { type: 'string' },
  'history-depth': { type: 'string' },
  verify: { type: 'boolean' },
  baseline: { type: 'string' },
  email: { type: 'string' },
  'password-env': { type: 'string' },
  role: { type: 'string' },
  enable: { type: 'boolean' },
  ecosystems: { type: 'string' },
  repository: { type: 'string' },
  application: { type: 'string' },
  commit: { type: 'string' },
  'source-repository': { type: 'string' },
  branch: { type: 'string' },
  category: { type: 'string' },
  root: { type: 'string' },
} as const;

/** Exit codes of a command that did not finish: a usage error, or something that went wrong while running. */
const EXIT_USAGE = 2;
const EXIT_RUNTIME = 3;

function processSettings(values: Record<string, unknown>) {
  return loadSettings(process.env, {
    dataDir: values['data-dir'] ? path.resolve(String(values['data-dir'])) : undefined,
    host: values.host as string | undefined,
    port: values.port !== undefined ? Number(values.port) : undefined,
  });
}

/** Runs until SIGINT or SIGTERM, then lets running work reach a safe point and exits. */
function stopOnSignal(running: { close(): Promise<void> }) {
  const stop = async () => {
    await running.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

// The server and worker are loaded on demand so admin commands start without the HTTP stack.
async function serve(values: Record<string, unknown>) {
  const { startServer } = await import('../server.ts');
  stopOnSignal(await startServer(processSettings(values), { worker: !values['no-worker'] }));
}

async function work(values: Record<string, unknown>) {
  const { startWorker } = await import('../worker.ts');
  stopOnSignal(await startWorker(processSettings(values)));
}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [command, sub, ...rest] = positionals;
  const json = Boolean(values.json);
  if (values.help || !command) {
    console.log(USAGE);
    return command || values.help ? 0 : EXIT_USAGE;
  }
  if (command === 'serve') {
    await serve(values);
    return -1;
  }
  if (command === 'worker') {
    await work(values);
    return -1;
  }
  if (command === 'scan') {
    const { scanCommand } = await import('./commands/scan.ts');
    return scanCommand(positionals.slice(1), values);
  }
  if (command === 'sarif-import') {
    const { withContext } = await import('./context.ts');
    const { sarifImport } = await import('./commands/sarif-import.ts');
    return withContext(values['data-dir'] as string | undefined, async (ctx) => {
      await sarifImport(ctx, positionals.slice(1), values, json);
      return 0;
    });
  }
  const run = ADMIN_COMMANDS[`${command} ${sub ?? ''}`.trim()];
  if (!run) throw new UsageError(`unknown command "${`${command} ${sub ?? ''}`.trim()}"; run bulwark --help`);
  const { withContext } = await import('./context.ts');
  return withContext(values['data-dir'] as string | undefined, async (ctx) => {
    await run(ctx, { values, rest, json });
    return 0;
  });
}

type AdminCommand = (ctx: CliContext, args: { values: Record<string, string | boolean | string[] | undefined>; rest: string[]; json: boolean }) => Promise<void>;

// Each command loads its module when it runs, so `--help` and `scan` start without the database layer.
const admin = () => import('./commands/admin.ts');
const users = () => import('./commands/users.ts');
const units = () => import('./commands/units.ts');
const ADMIN_COMMANDS: Record<string, AdminCommand> = {
  migrate: async (ctx, { json }) => (await admin()).migrateCommand(ctx, json),
  'org create': async (ctx, { values, json }) => (await admin()).orgCreate(ctx, values, json),
  'org list': async (ctx, { json }) => (await admin()).orgList(ctx, json),
  'key create': async (ctx, { values, json }) => (await admin()).keyCreate(ctx, values, json),
  'key list': async (ctx, { values, json }) => (await admin()).keyList(ctx, values, json),
  'key revoke': async (ctx, { rest, json }) => (await admin()).keyRevoke(ctx, rest, json),
  'repo add': async (ctx, { values, json }) => (await units()).unitAdd(ctx, values, json, 'repository'),
  'app add': async (ctx, { values, json }) => (await units()).unitAdd(ctx, values, json, 'application'),
  'repo list': async (ctx, { values, json }) => (await units()).unitList(ctx, values, json),
  'app list': async (ctx, { values, json }) => (await units()).unitList(ctx, values, json),
  'repo archive': async (ctx, { rest, values, json }) => (await units()).unitArchive(ctx, rest, values, json),
  'app archive': async (ctx, { rest, values, json }) => (await units()).unitArchive(ctx, rest, values, json),
  'repo token': async (ctx, { rest, values, json }) => (await units()).unitToken(ctx, rest, values, json),
  'app token': async (ctx, { rest, values, json }) => (await units()).unitToken(ctx, rest, values, json),
  'user create': async (ctx, { values, json }) => (await users()).userCreate(ctx, values, json),
  'user list': async (ctx, { json }) => (await users()).userList(ctx, json),
  'user disable': async (ctx, { rest, values, json }) => (await users()).userDisable(ctx, rest, values, json),
  'quota set': async (ctx, { values, json }) => (await admin()).quotaSet(ctx, values, json),
  'quota show': async (ctx, { values, json }) => (await admin()).quotaShow(ctx, values, json),
  'osv import': async (ctx, { rest, json }) => (await import('./commands/osv.ts')).osvImport(ctx, rest, json),
  'osv sync': async (ctx, { values, rest, json }) => (await import('./commands/osv.ts')).osvSync(ctx, values, rest, json),
};

function fail(error: unknown, json: boolean): number {
  const message = error instanceof Error ? error.message : String(error);
  if (json) process.stderr.write(JSON.stringify({ error: message }) + '\n');
  else process.stderr.write(`bulwark: ${message}\n`);
  return error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? EXIT_USAGE : EXIT_RUNTIME;
}

/** Entry point for `npm run bulwark`, `npm start` and the package bin. */
export function runCli(argv: string[]): void {
  // Node keeps the compiled (and type-stripped) code of the modules loaded from here on in a cache folder
  // under the system's temporary directory, keyed by their content: a later start skips that work.
  module.enableCompileCache();
  main(argv).then(
    (code) => {
      if (code >= 0) process.exitCode = code;
    },
    (error) => {
      process.exitCode = fail(error, argv.includes('--json'));
    },
  );
}

if (import.meta.main) runCli(process.argv.slice(2));

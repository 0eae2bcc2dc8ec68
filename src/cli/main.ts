import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadSettings } from '../config.ts';
import { runnableScanTypes } from '../engines/registry.ts';
import { keyCreate, keyList, keyRevoke, migrateCommand, orgCreate, orgList, quotaSet, quotaShow } from './commands/admin.ts';
import { osvImport } from './commands/osv.ts';
import { unitAdd, unitArchive, unitList } from './commands/units.ts';
import { withContext } from './context.ts';
import { UsageError } from './output.ts';

const USAGE = `bulwark — security scanning, findings triage and autofix service

Usage: bulwark <command> [options]        (every admin command takes --json and --data-dir DIR)

  serve [--host H] [--port P] [--no-worker]        start the API server (migrates first); --no-worker: API only
  worker                                           run scan jobs only (any number, on any machine)
  migrate                                          bring the database schema up to date
  org create --name NAME [--slug SLUG]             create an organization
  org list
  key create --org ORG --name NAME [--scopes read,scan:write,finding:write,fix:write,pr:write]
                                                   create an API key; the key is printed once
  key list --org ORG
  key revoke KEY_ID_OR_PREFIX
  repo add --org ORG --source provider:owner/name[@branch] [--name NAME] [--clone-url URL] [--token-env VAR]
  repo list --org ORG
  repo archive ID [--unarchive]
  app add --org ORG --name NAME --source SPEC [--source SPEC …] [--clone-url URL …] [--token-env VAR …]
  quota show --org ORG
  quota set --org ORG [--period monthly|weekly|daily] [--prs N] [--sast-scans N] [--deep-ai-scans N]
            [--topup-prs N] [--topup-sast-scans N] [--topup-deep-ai-scans N] [--max-repositories N|unlimited]
  osv import PATH                                  load OSV vulnerability records (a directory of JSON, or all.zip
                                                   exports) for sbom scans; safe to run again with newer exports
  scan DIR --type ${runnableScanTypes().map((t) => t.replace(/_scan$/, '')).join('|')} [--format table|json|sarif|semgrep-json|cyclonedx]
       [--fail-on critical|high|medium|low] [--output FILE] [--history-depth N]
                                                   scan a local folder (with its git history when it is a work
                                                   tree); no server; sbom reads OSV records from the database if
                                                   one exists; cyclonedx prints the SBOM; progress on stderr when
                                                   it is a terminal

Exit codes: 0 success (for scan: nothing at or above --fail-on), 1 findings at or above --fail-on,
2 usage error (unknown option, bad value, missing or wrong argument), 3 runtime error.

Environment: DATABASE_URL (PostgreSQL; default embedded SQLite), BULWARK_DATA_DIR, HOST, PORT, LOG_LEVEL,
BULWARK_ENCRYPTION_KEY.`;

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
  const dataDir = values['data-dir'];
  const key = `${command} ${sub ?? ''}`.trim();
  return withContext(dataDir, async (ctx) => {
    switch (key) {
      case 'migrate':
        await migrateCommand(ctx, json);
        break;
      case 'org create':
        await orgCreate(ctx, values, json);
        break;
      case 'org list':
        await orgList(ctx, json);
        break;
      case 'key create':
        await keyCreate(ctx, values, json);
        break;
      case 'key list':
        await keyList(ctx, values, json);
        break;
      case 'key revoke':
        await keyRevoke(ctx, rest, json);
        break;
      case 'repo add':
        await unitAdd(ctx, values, json, 'repository');
        break;
      case 'app add':
        await unitAdd(ctx, values, json, 'application');
        break;
      case 'repo list':
      case 'app list':
        await unitList(ctx, values, json);
        break;
      case 'repo archive':
      case 'app archive':
        await unitArchive(ctx, rest, values, json);
        break;
      case 'quota set':
        await quotaSet(ctx, values, json);
        break;
      case 'quota show':
        await quotaShow(ctx, values, json);
        break;
      case 'osv import':
        await osvImport(ctx, rest, json);
        break;
      default:
        throw new UsageError(`unknown command "${key}"; run bulwark --help`);
    }
    return 0;
  });
}

function fail(error: unknown, json: boolean): number {
  const message = error instanceof Error ? error.message : String(error);
  if (json) process.stderr.write(JSON.stringify({ error: message }) + '\n');
  else process.stderr.write(`bulwark: ${message}\n`);
  return error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? EXIT_USAGE : EXIT_RUNTIME;
}

/** Entry point for `npm run bulwark`, `npm start` and the package bin. */
export function runCli(argv: string[]): void {
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

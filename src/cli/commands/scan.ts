import crypto from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { loadSettings, localCacheDirFrom, type Settings } from '../../config.ts';
import { SCAN_TYPES, type ScanType } from '../../scanning/scan-types/index.ts';
import { loadTokenBox, TokenBox } from '../../crypto/token-box.ts';
import type { EngineInput, RawFinding, ScanArtifact } from '../../scanning/engine.ts';
import { defaultEngines, runnableScanTypes } from '../../scanning/engines.ts';
import { REPORT_FORMATS, renderReport, type ReportFormat } from '../../reports/index.ts';
import { atOrAbove, SEVERITIES, type Severity } from '../../core/severity.ts';
import { loadIgnore, walkFiles } from '../../scanning/source-files.ts';
import { git } from '../../scm/git-command.ts';
import { VERSION } from '../../version.ts';
import { baselineLine, baselineOption, newFindings, resolveBaseline, withBaselineSummary, withBaselineTree, type BaselineSummary } from '../baseline.ts';
import { optionalInt, UsageError } from '../output.ts';
import { progressDisplay } from '../progress.ts';

/**
 * Label the local fingerprint key derives from when BULWARK_ENCRYPTION_KEY is unset. Fingerprints are
 * then stable across local runs and machines (a baseline made on one matches the next run), but differ
 * from a server's, whose key is private. secret_hash values in the output are still HMACs, not plain
 * hashes of the secret; under this public key, though, they protect a weak secret no better than one.
 */
const LOCAL_KEY_LABEL = 'bulwark:local-scan:v1';

/**
 * The key for fingerprints and secret hashes. With BULWARK_ENCRYPTION_KEY set it is the server's (the
 * derivation the batch runner uses), so local fingerprints match the server's findings. Otherwise it is
 * not loadTokenBox's generated key: that would create <data dir>/encryption.key just to run a local scan.
 */
function fingerprintKey(settings: Settings): Buffer {
  const box = settings.encryptionKey
    ? loadTokenBox(settings.encryptionKey, settings.dataDir)
    : new TokenBox(crypto.createHash('sha256').update(LOCAL_KEY_LABEL).digest());
  return box.deriveKey('finding-fingerprints');
}

function choice<T extends string>(values: Record<string, unknown>, name: string, allowed: readonly T[]): T | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}; got "${value}"`);
  return value as T;
}

/** `secrets` or `secrets_scan`; any other type is refused with the list of engines this build runs. */
function resolveScanType(name: unknown): ScanType {
  const available = runnableScanTypes();
  const short = (type: ScanType) => type.replace(/(?:_ai)?_scan$/, '');
  const listing = available.map((t) => `${short(t)} (or ${t})`).join(', ');
  if (typeof name !== 'string' || !name) throw new UsageError(`--type is required; available: ${listing}`);
  const matches = (type: ScanType) => name === type || short(type) === name;
  const found = available.find(matches);
  if (found) return found;
  const known = SCAN_TYPES.find(matches);
  if (known) throw new UsageError(`the ${known} engine does not run locally in this build; available: ${listing}`);
  throw new UsageError(`unknown scan type "${name}"; available: ${listing}`);
}

/**
 * The git directory and HEAD when `dir` is the top of a git work tree with at least one commit. A folder
 * inside a work tree is scanned as a plain folder: history paths are relative to the repository's root,
 * so they would not line up with the folder's own.
 */
async function gitTarget(dir: string, settings: Settings, note: (message: string) => void): Promise<{ gitDir: string; commit: string } | undefined> {
  const options = { cwd: dir, timeoutMs: settings.gitTimeoutSeconds * 1000 };
  let top: string | undefined;
  let gitDir: string | undefined;
  try {
    [top, gitDir] = (await git(['rev-parse', '--show-toplevel', '--absolute-git-dir'], options)).split('\n');
  } catch {
    return undefined; // not a work tree, or no git installed
  }
  if (!top || !gitDir) return undefined;
  if ((await fs.realpath(top)) !== (await fs.realpath(dir))) {
    note(`${dir} is inside the git work tree ${top}; scanning the folder without its history`);
    return undefined;
  }
  try {
    return { gitDir, commit: (await git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], options)).trim() };
  } catch {
    return undefined; // no commit yet, so no history
  }
}

/** A tree of at most this many files is scanned in this thread: starting engine threads would cost more. */
const IN_THREAD_MAX_FILES = 200;

async function isSmallTree(dir: string): Promise<boolean> {
  let count = 0;
  for await (const _file of walkFiles(dir, await loadIgnore(dir))) if (++count > IN_THREAD_MAX_FILES) return false;
  return true;
}

/**
 * OSV records for a local sbom scan, from the configured database when it exists; without one the
 * scan still lists every dependency, and the engine says why it matched none.
 */
async function openLocalAdvisories(settings: Settings) {
  if (!settings.databaseUrl && !existsSync(path.join(settings.dataDir, 'bulwark.db'))) return undefined;
  // Loaded here: only an sbom scan with a database needs the store.
  const [{ openStore }, { migrateToLatest }, { storedAdvisories }] = await Promise.all([
    import('../../store/database.ts'),
    import('../../store/migrate.ts'),
    import('../../osv/advisories.ts'),
  ]);
  const store = openStore(settings);
  await migrateToLatest(store);
  return { lookup: storedAdvisories(store.db), close: () => store.close() };
}

/**
 * `bulwark scan DIR --type secrets`: runs an engine on a local folder, with no server (an sbom scan reads
 * OSV records from the database if there is one), and prints (or with --output, writes) a report. Exit
 * code 1 when --fail-on is given and a finding is at or above it, else 0 (usage errors exit 2 and runtime
 * errors 3, see main.ts). Progress goes to stderr only when stderr is a terminal. Findings' paths are
 * relative to DIR, so the report is the same from whichever directory the command runs. With --baseline
 * REF the tree of REF is scanned too, and only DIR's findings REF does not have are reported and counted.
 */
export async function scanCommand(args: string[], values: Record<string, unknown>): Promise<number> {
  const [target, ...extra] = args;
  if (!target) throw new UsageError('scan needs a directory: bulwark scan DIR --type secrets');
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}": scan takes one directory`);
  const format: ReportFormat = choice(values, 'format', REPORT_FORMATS) ?? 'table';
  const failOn: Severity | undefined = choice(values, 'fail-on', SEVERITIES);
  const output = values.output as string | undefined;
  if (output === '') throw new UsageError('--output needs a file name');
  const settings = loadSettings(process.env);
  const historyDepth = optionalInt(values, 'history-depth') ?? settings.secretsHistoryDepth;
  const scanType = resolveScanType(values.type);
  if (format === 'cyclonedx' && scanType !== 'sbom_scan') throw new UsageError('--format cyclonedx needs --type sbom');
  if (values.verify && scanType !== 'secrets_scan') throw new UsageError('--verify needs --type secrets');
  const baselineRef = baselineOption(values);
  if (baselineRef !== undefined && format === 'cyclonedx') throw new UsageError('--baseline leaves out findings, and --format cyclonedx prints the SBOM, which has none');

  const dir = path.resolve(target);
  const stat = await fs.stat(dir).catch(() => undefined);
  if (!stat) throw new UsageError(`${target}: no such directory`);
  if (!stat.isDirectory()) throw new UsageError(`${target} is a file; bulwark scan takes a directory (the project's root folder)`);
  const gitTimeoutMs = settings.gitTimeoutSeconds * 1000;
  const baseline = baselineRef === undefined ? undefined : await resolveBaseline(dir, baselineRef, gitTimeoutMs);

  const progress = progressDisplay(process.stderr);
  const note = (message: string) => progress.note(message);
  const advisories = scanType === 'sbom_scan' ? await openLocalAdvisories(settings) : undefined;
  const repo = await gitTarget(dir, settings, note);
  const artifacts: ScanArtifact[] = [];
  let findings: RawFinding[];
  let leftOut: BaselineSummary | undefined;
  try {
    const inCallingThread = await isSmallTree(dir);
    const scanWith = async (verify: boolean, input: Omit<EngineInput, 'fingerprintKey' | 'subject' | 'cacheScope'>) => {
      const engines = defaultEngines({
        secretsHistoryDepth: historyDepth,
        // Only on request: a local scan reaches providers with --verify, never through the server's setting alone.
        secretsVerify: verify ? { ...settings.secretsVerify, enabled: true } : null,
        sastRuleDirs: settings.sastRuleDirs,
        semgrepConfigs: settings.semgrepConfigs,
        cacheDir: localCacheDirFrom(process.env),
        cacheMaxBytes: settings.cacheMaxBytes,
        advisories: advisories?.lookup,
        inCallingThread,
        llm: settings.llm,
        deepReview: settings.deepReview,
        checksEnabled: settings.checksEnabled,
      });
      const engine = (await engines.engineFor(scanType))!;
      return engine.scan({
        ...input,
        fingerprintKey: fingerprintKey(settings),
        subject: path.basename(dir),
        // The local cache is this machine's alone; no organization shares it.
        cacheScope: 'local',
      });
    };
    findings = await scanWith(Boolean(values.verify), {
      dir,
      gitDir: repo?.gitDir,
      commit: repo?.commit,
      onNote: note,
      // Missing or stale vulnerability records: never a silent all-clear.
      onWarning: (message) => note(`warning: ${message}`),
      onArtifact: (artifact) => artifacts.push(artifact),
      onProgress: (step) => progress.update(step),
    });
    if (baseline) {
      const found = findings;
      const label = `baseline ${baseline.ref}`;
      progress.update({ phase: `${label}: writing its files` });
      findings = await withBaselineTree(baseline, dir, gitTimeoutMs, async (tree) => {
        if (tree.missing) note(`${label}: ${tree.missing} file${tree.missing === 1 ? ' is' : 's are'} not in the local repository (a partial clone?); findings in them count as new`);
        // Scanned as DIR is: with history when DIR's is read, never asking providers (validity is not identity).
        const inBaseline = await scanWith(false, {
          dir: tree.dir,
          gitDir: repo ? baseline.gitDir : undefined,
          commit: repo ? baseline.commit : undefined,
          onNote: (message) => note(`${label}: ${message}`),
          onWarning: (message) => note(`${label}: warning: ${message}`),
          onProgress: (step) => progress.update({ ...step, phase: `${label}: ${step.phase}` }),
        });
        return newFindings(found, inBaseline, tree.renames);
      });
      leftOut = { ref: baseline.ref, commit: baseline.commit, alreadyPresent: found.length - findings.length };
    }
  } finally {
    progress.finish();
    await advisories?.close();
  }
  const rendered = renderReport(format, {
    findings,
    artifacts,
    scanType,
    target: dir,
    commit: repo?.commit ?? null,
    historyDepth: repo ? historyDepth : 0,
    toolVersion: VERSION,
  });
  const text = leftOut ? withBaselineSummary(format, rendered, leftOut) : rendered;

  const counted = `${findings.length}${leftOut ? ' new' : ''} finding${findings.length === 1 ? '' : 's'}`;
  if (output) {
    await fs.writeFile(path.resolve(output), text);
    process.stderr.write(`bulwark: ${counted}${leftOut ? ` (${baselineLine(leftOut)})` : ''}; ${format} report written to ${output}\n`);
  } else {
    process.stdout.write(text);
    // The table says it in its last line; other formats are for tools, and CI logs show stderr.
    if (leftOut && format !== 'table') process.stderr.write(`bulwark: ${counted}; ${baselineLine(leftOut)}\n`);
  }
  return failOn && findings.some((f) => atOrAbove(f.severity, failOn)) ? 1 : 0;
}

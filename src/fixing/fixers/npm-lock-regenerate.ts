import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LockPin } from './dependency-bump.ts';
import { formatJson, isJsonObject, jsonLayout, parseJsonObject, type JsonObject } from './json-file.ts';

// After a lock bump took the vulnerable copies out, npm itself writes the lock again
// (`npm install --package-lock-only --ignore-scripts` against the configured registry): the new entries
// get the version, integrity and dependencies the registry gives, and what they need is added. The
// ranges the bump set exactly, so that npm installs the chosen version and no later one, are then
// written back as the project had them (raised where needed). No install scripts run and nothing is
// downloaded but metadata.

const TIMEOUT_MS = 180_000;

export interface RegenerateInput {
  /** The work tree. */
  dir: string;
  /** Repository path of package-lock.json or npm-shrinkwrap.json. */
  lockFile: string;
  pins: LockPin[];
  npmUrl: string;
  signal: AbortSignal;
}

export type Regenerated = { note: string } | { refused: string };

export async function regenerateNpmLock(input: RegenerateInput): Promise<Regenerated> {
  const folder = path.join(input.dir, path.posix.dirname(input.lockFile));
  const registry = originOf(input.npmUrl);
  if (!(await exists(path.join(folder, 'package.json')))) {
    return { refused: `npm cannot write ${input.lockFile} again without the package.json beside it` };
  }
  const failure = await runNpm(folder, input.npmUrl, input.signal);
  if (failure !== null) return { refused: `npm could not regenerate ${input.lockFile} from ${registry} (${failure}), and a lock it did not write would install something else than it says` };

  const byFile = new Map<string, LockPin[]>();
  for (const pin of [...input.pins, ...mirroredInLock(input)]) byFile.set(pin.file, [...(byFile.get(pin.file) ?? []), pin]);
  if (!byFile.has(input.lockFile)) byFile.set(input.lockFile, []);
  for (const [file, pins] of byFile) {
    const absolute = path.join(input.dir, file);
    const text = await fs.readFile(absolute, 'utf8');
    const json = parseJsonObject(text);
    if (!json) return { refused: `npm left ${file} unreadable` };
    for (const pin of pins) setAt(json, pin.path, pin.range);
    if (file === input.lockFile) syncLegacyRequires(json);
    await fs.writeFile(absolute, formatJson(json, jsonLayout(text)));
  }
  return { note: `npm regenerated ${input.lockFile} from ${registry}, so each entry has the dependencies its version declares` };
}

/**
 * The lock mirrors each package.json it covers (`packages[""]`, workspace entries); a lock npm wrote from
 * an older version had no such entries for the bump to pin, so the package.json ranges are set there too.
 */
function mirroredInLock(input: RegenerateInput): LockPin[] {
  const lockDir = path.posix.dirname(input.lockFile);
  return input.pins
    .filter((pin) => pin.file !== input.lockFile && pin.path[0] !== 'overrides')
    .map((pin) => {
      const folder = path.posix.relative(lockDir, path.posix.dirname(pin.file));
      return { file: input.lockFile, path: ['packages', folder, ...pin.path], range: pin.range };
    });
}

/** Sets the string at a path of objects when the path exists (npm may have rewritten the lock in another version). */
function setAt(json: JsonObject, at: string[], value: string): void {
  let holder: unknown = json;
  for (const key of at.slice(0, -1)) holder = isJsonObject(holder) ? holder[key] : undefined;
  if (isJsonObject(holder) && typeof holder[at.at(-1)!] === 'string') holder[at.at(-1)!] = value;
}

/** The version 2 `dependencies` tree mirrors each entry's ranges as `requires`: those follow `packages` again. */
function syncLegacyRequires(lock: JsonObject): void {
  const packages = lock.packages;
  if (!isJsonObject(packages) || !isJsonObject(lock.dependencies)) return;
  const walk = (tree: JsonObject, parent: string) => {
    for (const [key, entry] of Object.entries(tree)) {
      if (!isJsonObject(entry)) continue;
      const installPath = `${parent ? `${parent}/` : ''}node_modules/${key}`;
      const declared = packages[installPath];
      if (isJsonObject(entry.requires) && isJsonObject(declared)) {
        for (const name of Object.keys(entry.requires)) {
          for (const section of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
            const ranges = declared[section];
            if (isJsonObject(ranges) && typeof ranges[name] === 'string') {
              entry.requires[name] = ranges[name];
              break;
            }
          }
        }
      }
      if (isJsonObject(entry.dependencies)) walk(entry.dependencies, installPath);
    }
  };
  walk(lock.dependencies, '');
}

/**
 * What npm runs with: the path and proxy settings, nothing else. npm expands `${VAR}` in .npmrc values,
 * and the scanned repository's .npmrc is untrusted, so the service's own environment (database URL,
 * encryption key, tokens) must not be there for it to send to a registry of the repository's choosing.
 */
function npmEnvironment(): NodeJS.ProcessEnv {
  // NPM_CONFIG_USERCONFIG names an npmrc the operator chose (a mirror's credentials, a CA); the user's own
  // ~/.npmrc is not read, as HOME is a scratch folder.
  const passed = ['PATH', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'NPM_CONFIG_USERCONFIG'];
  const env: NodeJS.ProcessEnv = { HOME: path.join(os.tmpdir(), 'bulwark-npm-home') };
  for (const name of passed) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/** Runs npm; null when it succeeded, else the first thing it said went wrong. */
function runNpm(folder: string, registry: string, signal: AbortSignal): Promise<string | null> {
  const args = [
    'install',
    '--package-lock-only',
    '--ignore-scripts',
    '--no-audit',
    '--no-fund',
    '--update-notifier=false',
    '--loglevel=error',
    '--fetch-retries=1',
    `--registry=${registry}`,
    `--cache=${path.join(os.tmpdir(), 'bulwark-npm-cache')}`,
    // The scanned repository's .npmrc is read too: it must not choose the program npm runs for git.
    '--git=git',
  ];
  return new Promise((resolve) => {
    execFile('npm', args, { cwd: folder, env: npmEnvironment(), signal, timeout: TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (!error) return resolve(null);
      if (signal.aborted) return resolve('the fix was cancelled');
      const code = /npm error code (\S+)/.exec(stderr)?.[1];
      const message = stderr.split('\n').find((line) => /^npm error (?!code|syscall|errno)/.test(line))?.replace(/^npm error /, '');
      const said = [code, message ?? (error as Error).message].filter(Boolean).join(': ');
      resolve(said.replaceAll(registry, originOf(registry)).slice(0, 300));
    });
  });
}

/** The registry's address without any credentials in it, as notes show it. */
function originOf(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/+$/, '');
  } catch {
    return url;
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

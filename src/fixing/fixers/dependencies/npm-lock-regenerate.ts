import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LockPin } from './dependency-bump.ts';
import { formatJson, isJsonObject, jsonLayout, parseJsonObject, type JsonObject } from '../shared/json-file.ts';
import { foreignDependency, foreignInLock } from './npm-sources.ts';
import { readTreeFile, writeTreeFile } from '../shared/tree-files.ts';
import { isInstallPath } from '../../../inventory/extractors/npm-lock/npm-lock.ts';

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
  const folder = path.posix.dirname(input.lockFile);
  const inFolder = (file: string) => path.posix.join(folder, file);
  const registry = originOf(input.npmUrl);
  const manifestText = await readTreeFile(input.dir, inFolder('package.json'));
  if (manifestText === null) {
    return { refused: `npm cannot write ${input.lockFile} again without the package.json beside it` };
  }
  const manifest = parseJsonObject(manifestText);
  const lock = parseJsonObject((await readTreeFile(input.dir, input.lockFile)) ?? '');
  if (!manifest || !lock) return { refused: `${!manifest ? inFolder('package.json') : input.lockFile} is not a JSON object` };
  const members = workspaceMembers(lock);
  const foreign = foreignDependency(inFolder('package.json'), manifest) ?? foreignInLock(input.lockFile, lock, input.npmUrl);
  if (foreign) return { refused: notFromRegistry(foreign, input.lockFile) };

  // npm runs in a scratch folder holding the lock, its package.json and its workspace members' package.json
  // files only, so nothing else of the repository (an .npmrc naming registries, proxies or scripts) applies.
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'bulwark-npm-'));
  try {
    const project = path.join(scratch, 'project');
    await fs.mkdir(project);
    await fs.writeFile(path.join(project, 'package.json'), manifestText);
    await fs.writeFile(path.join(project, path.posix.basename(input.lockFile)), (await readTreeFile(input.dir, input.lockFile))!);
    for (const member of members) {
      // A member is copied to the same place in the scratch project, which it must not leave.
      if (path.posix.normalize(member).startsWith('..') || path.posix.isAbsolute(member)) continue;
      const text = await readTreeFile(input.dir, inFolder(path.posix.join(member, 'package.json')));
      const json = text === null ? null : parseJsonObject(text);
      if (text === null || !json) continue;
      const memberForeign = foreignDependency(inFolder(path.posix.join(member, 'package.json')), json);
      if (memberForeign) return { refused: notFromRegistry(memberForeign, input.lockFile) };
      await fs.mkdir(path.join(project, member), { recursive: true });
      await fs.writeFile(path.join(project, member, 'package.json'), text);
    }
    const failure = await runNpm(project, scratch, input.npmUrl, input.signal);
    if (failure !== null) return { refused: `npm could not regenerate ${input.lockFile} from ${registry} (${failure}), and a lock it did not write would install something else than it says` };
    const written = await fs.readFile(path.join(project, path.posix.basename(input.lockFile)), 'utf8');
    const writtenJson = parseJsonObject(written);
    if (!writtenJson) return { refused: `npm left ${input.lockFile} unreadable` };
    const strayed = foreignInLock(input.lockFile, writtenJson, input.npmUrl);
    if (strayed) return { refused: `npm wrote a lock in which ${strayed}, and a fix does not bring in packages from another host` };
    await writeTreeFile(input.dir, input.lockFile, written);
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }

  const byFile = new Map<string, LockPin[]>();
  for (const pin of [...input.pins, ...mirroredInLock(input)]) byFile.set(pin.file, [...(byFile.get(pin.file) ?? []), pin]);
  if (!byFile.has(input.lockFile)) byFile.set(input.lockFile, []);
  for (const [file, pins] of byFile) {
    const text = (await readTreeFile(input.dir, file)) ?? '';
    const json = parseJsonObject(text);
    if (!json) return { refused: `npm left ${file} unreadable` };
    for (const pin of pins) setAt(json, pin.path, pin.range);
    if (file === input.lockFile) syncLegacyRequires(json);
    await writeTreeFile(input.dir, file, formatJson(json, jsonLayout(text)));
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

/** The folders of the lock's workspace members (and other local packages), relative to it. */
function workspaceMembers(lock: JsonObject): string[] {
  return isJsonObject(lock.packages) ? Object.keys(lock.packages).filter((key) => key !== '' && !isInstallPath(key)) : [];
}

function notFromRegistry(what: string, lockFile: string): string {
  return `${what}, not from the registry; npm would fetch it from there while writing ${lockFile} again, so the fix leaves it to be done by hand`;
}

/**
 * What npm runs with: the path and proxy settings of the service, nothing else. The service's own
 * environment (database URL, encryption key, tokens) must not be there for npm to expand into a request.
 */
function npmEnvironment(home: string): NodeJS.ProcessEnv {
  const passed = ['PATH', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE'];
  const env: NodeJS.ProcessEnv = { HOME: home };
  for (const name of passed) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/** Runs npm in `project`; null when it succeeded, else the first thing it said went wrong. */
async function runNpm(project: string, scratch: string, registry: string, signal: AbortSignal): Promise<string | null> {
  // The configuration npm reads is the service's: an npmrc the operator named (a mirror's credentials, a CA)
  // or an empty one, and an empty global one; the user's own ~/.npmrc is not read, as HOME is the scratch folder.
  // npm refuses one file as both.
  const [user, global] = [path.join(scratch, 'user.npmrc'), path.join(scratch, 'global.npmrc')];
  await Promise.all([fs.writeFile(user, ''), fs.writeFile(global, '')]);
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
    `--userconfig=${process.env.NPM_CONFIG_USERCONFIG || user}`,
    `--globalconfig=${global}`,
    `--cache=${path.join(os.tmpdir(), 'bulwark-npm-cache')}`,
  ];
  return new Promise((resolve) => {
    execFile('npm', args, { cwd: project, env: npmEnvironment(scratch), signal, timeout: TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => {
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

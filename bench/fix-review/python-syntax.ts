// Whether Python modules are valid syntax for a given interpreter version, without running them: the
// version's own interpreter compiles each (compile(), whose bytecode is thrown away) where it is installed;
// otherwise a newer Python 3 parses with ast.parse(feature_version=(3, minor)), or, for Python 2,
// with lib2to3's Python 2 grammar and a walk that refuses Python-3-only syntax (python_syntax_check.py).
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface PythonVersion {
  major: number;
  minor: number;
  micro?: number;
}

export const versionText = (v: PythonVersion) => `${v.major}.${v.minor}${v.micro === undefined ? '' : `.${v.micro}`}`;

export interface SyntaxPlan {
  target: PythonVersion;
  interpreter: string;
  mode: 'compile' | 'ast' | 'lib2to3';
  /** The minor version handed to ast.parse, after clamping. */
  minor: number | null;
  /** How the version is checked, for the report ("python2.7 compile()", "python3.11 ast.parse(feature_version=(3, 4))"). */
  how: string;
  /** What the check cannot see, when it is not the version's own interpreter. */
  caveat?: string;
}

export interface SyntaxProblem {
  line: number | null;
  message: string;
}

const CHECKER = path.join(import.meta.dirname, 'python_syntax_check.py');
// -E -s -S: no PYTHON* variables, no user or site packages; nothing of the checked code is imported either way.
const FLAGS = ['-E', '-s', '-S'];

const found = new Map<string, string | null>();

/**
 * The interpreter's major.minor and the executable behind it (a shim or a link resolved, so the checks need no
 * PATH or HOME of their own); null when it does not run (a pyenv shim of a version not selected exits 127).
 */
function probe(executable: string): { version: string; path: string } | null {
  try {
    const [version, real] = execFileSync(executable, [...FLAGS, '-c', "import sys; sys.stdout.write('%d.%d\\n%s' % (sys.version_info[0], sys.version_info[1], sys.executable))"], {
      encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'], cwd: os.tmpdir(),
    }).split('\n');
    return version ? { version: version.trim(), path: real?.trim() || executable } : null;
  } catch {
    return null;
  }
}

/** An installed interpreter of exactly major.minor: pyenv's versions, then PATH (pyenv's shims left out). */
export function interpreterFor(major: number, minor: number): string | null {
  const wanted = `${major}.${minor}`;
  if (found.has(wanted)) return found.get(wanted)!;
  const pyenv = process.env.PYENV_ROOT || path.join(os.homedir(), '.pyenv');
  const candidates: string[] = [];
  try {
    for (const name of fs.readdirSync(path.join(pyenv, 'versions')).sort().reverse()) {
      if (name === wanted || name.startsWith(`${wanted}.`)) candidates.push(path.join(pyenv, 'versions', name, 'bin', `python${wanted}`));
    }
  } catch {
    // no pyenv
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && !dir.endsWith(`${path.sep}shims`)) candidates.push(path.join(dir, `python${wanted}`));
  }
  if (major === 3) candidates.push('python3');
  let interpreter: string | null = null;
  for (const candidate of candidates) {
    const found = candidate === 'python3' || fs.existsSync(candidate) ? probe(candidate) : null;
    if (found?.version === wanted) {
      interpreter = found.path;
      break;
    }
  }
  found.set(wanted, interpreter);
  return interpreter;
}

/** A Python 3 that can host the fallbacks: `python3` if it is 3.8 or later (ast's feature_version), else a 3.8–3.12. */
function hostPython(needLib2to3: boolean): { interpreter: string; minor: number } | null {
  const key = `host:${needLib2to3}`;
  if (!found.has(key)) {
    const own = probe('python3');
    const ownMinor = own?.version.startsWith('3.') ? Number(own.version.slice(2)) : 0;
    // lib2to3 left the standard library in 3.13
    const fits = (minor: number) => minor >= 8 && (!needLib2to3 || minor <= 12);
    let pick: string | null = own && fits(ownMinor) ? `${own.path}:${ownMinor}` : null;
    for (let minor = 12; !pick && minor >= 8; minor--) {
      const interpreter = interpreterFor(3, minor);
      if (interpreter) pick = `${interpreter}:${minor}`;
    }
    found.set(key, pick);
  }
  const pick = found.get(key);
  if (!pick) return null;
  const at = pick.lastIndexOf(':');
  return { interpreter: pick.slice(0, at), minor: Number(pick.slice(at + 1)) };
}

/** How `target` is checked here, or null when no Python that can check it is installed. */
export function planSyntaxCheck(target: PythonVersion): SyntaxPlan | null {
  const label = `${target.major}.${target.minor}`;
  const own = interpreterFor(target.major, target.minor);
  if (own) return { target, interpreter: own, mode: 'compile', minor: target.minor, how: `python${label} compile()` };
  if (target.major === 2) {
    const host = hostPython(true);
    if (!host) return null;
    return {
      target, interpreter: host.interpreter, mode: 'lib2to3', minor: null,
      how: `python3.${host.minor} lib2to3 Python 2 grammar`,
      caveat: 'lib2to3 reads Python 2 and 3 alike; Python-3-only syntax is refused by a list of its own, so a construct missing from that list passes',
    };
  }
  if (target.major !== 3) return null;
  const host = hostPython(false);
  if (!host) return null;
  // The lowest feature_version ast.parse supports is (3, 4) up to Python 3.12 and (3, 7) from 3.13 (ast docs).
  const floor = host.minor >= 13 ? 7 : 4;
  const minor = Math.min(Math.max(target.minor, floor), host.minor);
  const caveats = [
    'ast.parse(feature_version) is best effort: it refuses the newer constructs it knows of, not every one',
    ...(minor !== target.minor ? [`3.${target.minor} is checked as 3.${minor}, ${minor > target.minor ? 'the lowest feature_version this ast supports' : 'the newest this interpreter reads'}`] : []),
  ];
  return { target, interpreter: host.interpreter, mode: 'ast', minor, how: `python3.${host.minor} ast.parse(feature_version=(3, ${minor}))`, caveat: caveats.join('; ') };
}

/** For each source, null when it is valid for the plan's version, else the first error. */
export function checkSyntax(plan: SyntaxPlan, files: { name: string; source: string }[]): Promise<(SyntaxProblem | null)[]> {
  if (!files.length) return Promise.resolve([]);
  return new Promise((resolve, reject) => {
    const child = execFile(
      plan.interpreter, [...FLAGS, CHECKER],
      { cwd: os.tmpdir(), env: { PATH: process.env.PATH ?? '', PYTHONIOENCODING: 'utf-8', LC_ALL: 'C.UTF-8' }, timeout: 120_000, maxBuffer: 16 << 20, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${plan.how} failed: ${stderr.trim().split('\n').slice(-1)[0] ?? error.message}`));
        try {
          resolve(JSON.parse(stdout));
        } catch {
          reject(new Error(`${plan.how} answered ${stdout.slice(0, 200)}`));
        }
      },
    );
    child.stdin!.end(JSON.stringify({ mode: plan.mode, minor: plan.minor, files }));
  });
}

/** The version of the `python3` the fallbacks run on (the version an application that declares none is checked as). */
export function localPython3(): PythonVersion | null {
  const host = hostPython(false);
  return host ? { major: 3, minor: host.minor } : null;
}

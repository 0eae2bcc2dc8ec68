import type { SgNode } from '@ast-grep/napi';
import { loginWithoutAttemptLimit, missingAuthentication, missingCsrfProtection, objectByIdWithoutOwnership } from './checks/access.ts';
import { errorDetailsToClient, HASHES_PASSWORD, passwordInSerializedOutput, plaintextPasswordColumn, plaintextPasswordStorage } from './checks/exposure.ts';
import { catastrophicRegex } from './checks/regex-dos.ts';
import type { ApplicationFinding, Candidate, Hotspots } from './checks/shared.ts';
import { buildPythonProgram, type DeclaredOperation, type Handler, type PythonFile, type PythonProgram, type PythonSource } from './python-program.ts';

// Whole-application checks over the Python program model: what no single pattern or per-file taint trace
// can tell, because the answer depends on what the rest of the application does (whether any limiter,
// CSRF protection or guard exists elsewhere). Each yields at most one finding per root cause and place.

export type { ApplicationFinding, Hotspots } from './checks/shared.ts';

const FILE_CHECKS = [errorDetailsToClient, plaintextPasswordStorage, plaintextPasswordColumn, passwordInSerializedOutput, objectByIdWithoutOwnership, catastrophicRegex];

/**
 * Every whole-application finding of a project's Python files; `hotspots` are the static analysis's serious
 * findings. Each file is parsed once: the checks that read its tree run while the model is built, and what
 * they find is kept once the rest of the program shows it holds.
 */
export async function checkPythonSources(
  sources: PythonSource[],
  hotspots: Hotspots = {},
  operations: DeclaredOperation[] = [],
): Promise<{ findings: ApplicationFinding[]; program: PythonProgram }> {
  const candidates: Candidate[] = [];
  const visit = (file: PythonFile, root: SgNode, handlers: Handler[]) => {
    for (const check of FILE_CHECKS) candidates.push(...check({ file, root, handlers }));
  };
  const program = await buildPythonProgram(sources, visit, operations);
  const projectCode = program.files.map((f) => f.code).join('\n');
  const hashesPasswords = HASHES_PASSWORD.test(projectCode.replace(/\b(?:md5|sha\d+|hashlib)\b/g, ''));
  const counted = new Set(program.handlers);
  const holds = ({ handler, needs }: Candidate) =>
    (!handler || counted.has(handler)) &&
    (needs !== 'guarded' || handler?.guarded === true) &&
    (needs !== 'handlers-anywhere' || program.handlers.length > 0) &&
    (needs !== 'no-password-hashing' || !hashesPasswords);
  const findings = [
    ...loginWithoutAttemptLimit(program, projectCode),
    ...missingCsrfProtection(program, projectCode),
    ...missingAuthentication(program, hotspots),
    ...candidates.filter(holds).map((c) => c.finding),
  ];
  findings.sort((a, b) => a.path.localeCompare(b.path) || a.startLine - b.startLine || a.checkId.localeCompare(b.checkId));
  return { findings, program };
}

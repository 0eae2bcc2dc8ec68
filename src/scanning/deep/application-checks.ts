import type { SgNode } from '@ast-grep/napi';
import { adminWithoutAuthorization, genericViewWithoutOwnership, loginWithoutAttemptLimit, stateChangingGet, missingAuthentication, missingCsrfProtection, objectByIdWithoutOwnership } from './checks/access.ts';
import { errorDetailsToClient, HASHES_PASSWORD, passwordInSerializedOutput, plaintextPasswordColumn, plaintextPasswordStorage } from './checks/exposure.ts';
import { catastrophicRegexJs, errorDetailsToClientJs, objectByIdWithoutOwnershipJs } from './checks/js.ts';
import { catastrophicRegex } from './checks/regex-dos.ts';
import { buildJsProgram, type JsSource } from './js-program.ts';
import type { ApplicationFinding, Candidate, Hotspots } from './checks/shared.ts';
import { buildPythonProgram, type DeclaredOperation, type Handler, type ProgramFile, type PythonProgram, type PythonSource } from './python-program.ts';

// Whole-application checks over the Python program model: what no single pattern or per-file taint trace
// can tell, because the answer depends on what the rest of the application does (whether any limiter,
// CSRF protection or guard exists elsewhere). Each yields at most one finding per root cause and place.

export type { ApplicationFinding, Hotspots } from './checks/shared.ts';

/**
 * Checks a deep scan runs only when BULWARK_CHECKS_ENABLED names them: on the applications they were
 * measured on, their true positives came from one application only or fewer than half their findings held.
 */
export const OFF_BY_DEFAULT = new Set([
  'python.deep.csrf.missing-csrf-protection',
  'python.deep.authz.admin-without-role-check',
  'python.deep.crypto.plaintext-password-storage',
  'python.deep.crypto.plaintext-password-column',
  'python.deep.data.password-in-serialized-output',
  'javascript.deep.authz.admin-without-role-check',
  'javascript.deep.auth.missing-authentication',
]);

const PYTHON_FILE_CHECKS = [errorDetailsToClient, plaintextPasswordStorage, plaintextPasswordColumn, passwordInSerializedOutput, objectByIdWithoutOwnership, genericViewWithoutOwnership, catastrophicRegex];
const JS_FILE_CHECKS = [errorDetailsToClientJs, objectByIdWithoutOwnershipJs, catastrophicRegexJs];

type FileCheck = (context: { file: ProgramFile; root: SgNode; handlers: Handler[] }) => Candidate[];

/**
 * The findings of a program built by `build`: the per-file checks run while each file's tree is alive (the
 * builder calls `visit`), and what they find is kept once the whole program shows it holds; then the checks
 * that read only the model.
 */
async function checkProgram(
  build: (visit: (file: ProgramFile, root: SgNode, handlers: Handler[]) => void) => Promise<PythonProgram>,
  fileChecks: FileCheck[],
  hotspots: Hotspots,
): Promise<{ findings: ApplicationFinding[]; program: PythonProgram }> {
  const candidates: Candidate[] = [];
  const program = await build((file, root, handlers) => {
    for (const check of fileChecks) candidates.push(...check({ file, root, handlers }));
  });
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
    ...stateChangingGet(program, projectCode),
    ...missingAuthentication(program, hotspots),
    ...adminWithoutAuthorization(program),
    ...candidates.filter(holds).map((c) => c.finding),
  ];
  findings.sort((a, b) => a.path.localeCompare(b.path) || a.startLine - b.startLine || a.checkId.localeCompare(b.checkId));
  return { findings, program };
}

/**
 * Every whole-application finding of a project's Python files; `hotspots` are the static analysis's serious
 * findings, `operations` the routes API descriptions declare.
 */
export function checkPythonSources(
  sources: PythonSource[],
  hotspots: Hotspots = {},
  operations: DeclaredOperation[] = [],
): Promise<{ findings: ApplicationFinding[]; program: PythonProgram }> {
  return checkProgram((visit) => buildPythonProgram(sources, visit, operations), PYTHON_FILE_CHECKS, hotspots);
}

/** Every whole-application finding of a project's JavaScript and TypeScript files. */
export function checkJsSources(sources: JsSource[], hotspots: Hotspots = {}): Promise<{ findings: ApplicationFinding[]; program: PythonProgram }> {
  return checkProgram((visit) => buildJsProgram(sources, visit), JS_FILE_CHECKS, hotspots);
}

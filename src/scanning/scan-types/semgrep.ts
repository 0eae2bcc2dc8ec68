import type { EngineOptions, ScanTypeDescriptor } from './descriptor.ts';

/** The SAST engine with the operator's rules and settings; `deep_ai_scan` runs it too. */
export async function sastEngineFor(options: EngineOptions) {
  const { SastEngine } = await import('../sast/sast-engine.ts');
  return new SastEngine({
    extraRuleDirs: options.sastRuleDirs,
    externalSemgrep: { configs: options.semgrepConfigs ?? [] },
    cacheDir: options.cacheDir,
    cacheMaxBytes: options.cacheMaxBytes,
    ...(options.inCallingThread ? { pool: null } : {}),
  });
}

export const semgrepScan: ScanTypeDescriptor<'semgrep_scan'> = {
  name: 'semgrep_scan',
  summary: 'static analysis with the built-in and operator SAST rules (and Semgrep configs when set)',
  families: ['repository', 'application'],
  quotaType: 'sast_scans',
  engine: sastEngineFor,
  // The catalog's codemod for a rule first, then hard-coded credentials moved as the secrets fixer moves
  // them, then the rule's own `fix` template.
  fixers: async (rules) => [
    (await import('../../fixing/fixers/sast/codemod-fixer.ts')).createCodemodFixer(rules),
    (await import('../../fixing/fixers/secrets/secret-fixer.ts')).createSastCredentialFixer(rules),
    (await import('../../fixing/fixers/sast/sast-rule-fixer.ts')).createSastRuleFixer(rules),
  ],
  // The same rule fires again where the finding's match went; see verify.ts.
  stillDetected: async () => (await import('../../fixing/verify.ts')).sastStillDetected,
};

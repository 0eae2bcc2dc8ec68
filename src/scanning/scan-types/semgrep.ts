import type { EngineOptions, ScanTypeDescriptor } from './descriptor.ts';

/** The SAST engine with the operator's rules and settings; `deep_ai_scan` runs it too. */
export async function sastEngineFor(options: EngineOptions) {
  const { SastEngine } = await import('../sast/sast-engine.ts');
  return new SastEngine({
    extraRuleDirs: options.sastRuleDirs,
    externalSemgrep: { configs: options.semgrepConfigs ?? [] },
    cacheDir: options.cacheDir,
    cacheMaxBytes: options.cacheMaxBytes,
    enabledRules: options.checksEnabled,
    ...(options.inCallingThread ? { pool: null } : {}),
  });
}

export const semgrepScan: ScanTypeDescriptor<'semgrep_scan'> = {
  name: 'semgrep_scan',
  summary: 'static analysis with the built-in and operator SAST rules (and Semgrep configs when set)',
  families: ['repository', 'application'],
  quotaType: 'sast_scans',
  engine: sastEngineFor,
  // The same rule fires again where the finding's match went; see still-detected.ts.
  stillDetected: async () => (await import('../../fixing/still-detected.ts')).sastStillDetected,
};

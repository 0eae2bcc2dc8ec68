import type { ScanTypeDescriptor } from './descriptor.ts';

export const secretsScan: ScanTypeDescriptor<'secrets_scan'> = {
  name: 'secrets_scan',
  summary: 'committed credentials, in the tree and in recent history',
  families: ['repository', 'application'],
  quotaType: 'sast_scans',
  engine: async (options) => {
    const { SecretsEngine } = await import('../secrets/secrets-engine.ts');
    const engine = new SecretsEngine({ historyDepth: options.secretsHistoryDepth, ...(options.inCallingThread ? { pool: null } : {}) });
    if (!options.secretsVerify?.enabled) return engine;
    const { VerifyingSecretsEngine } = await import('../secrets/verify/engine.ts');
    return new VerifyingSecretsEngine(engine, options.secretsVerify, options.inCallingThread ? null : undefined);
  },
  // The detector fires again with the same rule on a value of the same masked form; see still-detected.ts.
  stillDetected: async () => (await import('../../fixing/still-detected.ts')).secretStillDetected,
};

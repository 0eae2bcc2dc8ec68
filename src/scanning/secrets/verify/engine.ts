import type { EngineInput, RawFinding, ScanEngine } from '../../engine.ts';
import { enginePool, type WorkerPool } from '../../worker-pool.ts';
import { verifyFindings } from './runner.ts';
import type { SecretsVerifySettings } from './settings.ts';

/**
 * The secrets engine followed by live validity checks of what it found: detection stays pure (no
 * network), and only a scan whose settings turn checks on reaches providers.
 */
export class VerifyingSecretsEngine implements ScanEngine {
  readonly scanType = 'secrets_scan' as const;
  private readonly inner: ScanEngine;
  private readonly settings: SecretsVerifySettings;
  private readonly pool: WorkerPool | null | undefined;

  /** `pool`: the threads that read credentials again; the process's engine pool when absent, this thread when null. */
  constructor(inner: ScanEngine, settings: SecretsVerifySettings, pool?: WorkerPool | null) {
    this.inner = inner;
    this.settings = settings;
    this.pool = pool;
  }

  async scan(input: EngineInput): Promise<RawFinding[]> {
    const findings = await this.inner.scan(input);
    input.onProgress?.({ phase: 'checking credentials with their providers' });
    await verifyFindings(findings, input, this.settings, this.pool === undefined ? enginePool() : this.pool);
    return findings;
  }
}

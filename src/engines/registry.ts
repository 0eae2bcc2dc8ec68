import type { ScanType } from '../core/scan-types.ts';
import type { ScanEngine } from './engine.ts';
import { SastEngine } from './sast/sast-engine.ts';
import { SecretsEngine } from './secrets/secrets-engine.ts';

export type EngineRegistry = Partial<Record<ScanType, ScanEngine>>;

/** The engines this build ships; a scan type missing here fails its batch at once with its credit returned. */
export function defaultEngines(options: { secretsHistoryDepth: number; sastRuleDirs?: string[]; semgrepConfigs?: string[] }): EngineRegistry {
  return {
    secrets_scan: new SecretsEngine({ historyDepth: options.secretsHistoryDepth }),
    semgrep_scan: new SastEngine({ extraRuleDirs: options.sastRuleDirs, externalSemgrep: { configs: options.semgrepConfigs ?? [] } }),
  };
}

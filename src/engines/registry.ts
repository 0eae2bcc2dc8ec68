import type { ScanType } from '../core/scan-types.ts';
import type { AdvisoryLookup } from '../osv/advisories.ts';
import type { ScanEngine } from './engine.ts';
import { SastEngine } from './sast/sast-engine.ts';
import { SbomEngine } from './sbom/sbom-engine.ts';
import { SecretsEngine } from './secrets/secrets-engine.ts';

export type EngineRegistry = Partial<Record<ScanType, ScanEngine>>;

export interface EngineOptions {
  secretsHistoryDepth: number;
  sastRuleDirs?: string[];
  semgrepConfigs?: string[];
  /** Vulnerability records for `sbom_scan`; without them it inventories dependencies and matches none. */
  advisories?: AdvisoryLookup;
}

const NO_ADVISORIES: AdvisoryLookup = { forPackages: async () => new Map(), hasRecords: async () => false };

/** The engines this build ships; a scan type missing here fails its batch at once with its credit returned. */
export function defaultEngines(options: EngineOptions): EngineRegistry {
  return {
    secrets_scan: new SecretsEngine({ historyDepth: options.secretsHistoryDepth }),
    semgrep_scan: new SastEngine({ extraRuleDirs: options.sastRuleDirs, externalSemgrep: { configs: options.semgrepConfigs ?? [] } }),
    sbom_scan: new SbomEngine(options.advisories ?? NO_ADVISORIES),
  };
}

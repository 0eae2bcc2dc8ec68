import { allScanTypes, scanTypeNamed, type EngineOptions } from './scan-types/index.ts';
import type { ScanType } from './scan-type-names.ts';
import type { ScanEngine } from './engine.ts';

export type { EngineOptions } from './scan-types/index.ts';

/** The engines of one process, each loaded on first use and kept. */
export interface EngineRegistry {
  /** The engine for a scan type; null when this build has none for it. An unknown type throws. */
  engineFor(scanType: string): Promise<ScanEngine | null>;
}

/** The scan types this build has an engine for, in contract order. */
export function runnableScanTypes(): ScanType[] {
  return allScanTypes().filter((d) => d.engine !== null).map((d) => d.name);
}

/** The engines the scan-type registry declares, built with `options`. */
export function defaultEngines(options: EngineOptions): EngineRegistry {
  const loaded = new Map<ScanType, Promise<ScanEngine | null>>();
  return {
    async engineFor(scanType) {
      const descriptor = scanTypeNamed(scanType);
      let engine = loaded.get(descriptor.name);
      if (!engine) {
        engine = descriptor.engine ? descriptor.engine(options) : Promise.resolve(null);
        loaded.set(descriptor.name, engine);
      }
      return engine;
    },
  };
}

import type { QuotaType } from '../../core/quotas.ts';
import { deepAiScan } from './deep-ai.ts';
import type { RouteFamily, ScanTypeDescriptor } from './descriptor.ts';
import { sbomScan } from './sbom.ts';
import { secretsScan } from './secrets.ts';
import { semgrepScan } from './semgrep.ts';
import { SCAN_TYPE_NAMES, type ScanType } from '../scan-type-names.ts';

// The descriptors of the scan types, in the order the contract lists them. Adding a type is its name in
// ../scan-type-names.ts, one module beside these and one line here; validation, quotas, engines,
// verification and CLI help all read this list.
const DESCRIPTORS = [secretsScan, semgrepScan, deepAiScan, sbomScan] as const;

type NamesOf<T extends readonly unknown[]> = { readonly [K in keyof T]: T[K] extends { name: infer N } ? N : never };
/** Fails to compile unless the descriptors are those of SCAN_TYPE_NAMES, one each, in its order. */
const DESCRIBED_NAMES: NamesOf<typeof DESCRIPTORS> = SCAN_TYPE_NAMES;

export type { ScanType } from '../scan-type-names.ts';

export const SCAN_TYPES: readonly ScanType[] = DESCRIBED_NAMES;

/** The scan types a route family accepts, in contract order. */
export function scanTypesOf(family: RouteFamily): ScanType[] {
  return DESCRIPTORS.filter((d) => d.families.includes(family)).map((d) => d.name);
}

export class UnknownScanTypeError extends Error {
  readonly scanType: string;
  constructor(scanType: string) {
    super(`unknown scan type "${scanType}"; known: ${SCAN_TYPES.join(', ')}`);
    this.scanType = scanType;
  }
}

/** The descriptor of a scan type; an unknown type throws, so nothing falls back to another type's rules. */
export function scanTypeNamed(name: string): ScanTypeDescriptor<ScanType> {
  const descriptor = DESCRIPTORS.find((d) => d.name === name);
  if (!descriptor) throw new UnknownScanTypeError(name);
  return descriptor;
}

export function allScanTypes(): readonly ScanTypeDescriptor<ScanType>[] {
  return DESCRIPTORS;
}

export function quotaTypeForScan(scanType: string): QuotaType {
  return scanTypeNamed(scanType).quotaType;
}

export type { EngineOptions, RouteFamily, ScanTypeDescriptor, StillDetected } from './descriptor.ts';

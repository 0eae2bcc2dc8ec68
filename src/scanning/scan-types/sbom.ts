import { NO_RECORDS_WARNING, type AdvisoryLookup } from '../../osv/advisories.ts';
import type { ScanTypeDescriptor } from './descriptor.ts';

/** No database (a local scan without one): every dependency is listed, none matched, and the scan says so. */
const NO_ADVISORIES: AdvisoryLookup = {
  forPackages: async () => new Map(),
  hasRecords: async () => false,
  warningsFor: async (ecosystems) => (ecosystems.length ? [NO_RECORDS_WARNING] : []),
};

export const sbomScan: ScanTypeDescriptor<'sbom_scan'> = {
  name: 'sbom_scan',
  summary: 'a CycloneDX inventory of dependencies, matched against stored vulnerability records',
  // An SBOM is one repository's inventory, so the application family refuses it.
  families: ['repository'],
  quotaType: 'sast_scans',
  engine: async (options) => {
    const { SbomEngine } = await import('../sbom/sbom-engine.ts');
    return new SbomEngine(options.advisories ?? NO_ADVISORIES, options.inCallingThread ? null : undefined, options.maxManifestBytes);
  },
  // The manifest, extracted again, no longer has the package at an affected version; see still-detected.ts.
  stillDetected: async () => (await import('../../fixing/still-detected.ts')).dependencyStillDetected,
};

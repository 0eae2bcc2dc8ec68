import type { ScanTypeDescriptor } from './descriptor.ts';

const NO_ADVISORIES = { forPackages: async () => new Map(), hasRecords: async () => false };

export const sbomScan: ScanTypeDescriptor<'sbom_scan'> = {
  name: 'sbom_scan',
  summary: 'a CycloneDX inventory of dependencies, matched against stored vulnerability records',
  // An SBOM is one repository's inventory, so the application family refuses it.
  families: ['repository'],
  quotaType: 'sast_scans',
  defaultSeverity: 'medium',
  engine: async (options) => {
    const { SbomEngine } = await import('../engines/sbom/sbom-engine.ts');
    return new SbomEngine(options.advisories ?? NO_ADVISORIES, options.inCallingThread ? null : undefined);
  },
  fixers: async (_rules, services) => [(await import('../fixing/fixers/dependency-fixer.ts')).createDependencyFixer(services)],
  // The manifest, extracted again, no longer has the package at an affected version; see verify.ts.
  stillDetected: async () => (await import('../fixing/verify.ts')).dependencyStillDetected,
};

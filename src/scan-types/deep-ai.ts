import type { ScanTypeDescriptor } from './descriptor.ts';
import { sastEngineFor, semgrepScan } from './semgrep.ts';

export const deepAiScan: ScanTypeDescriptor<'deep_ai_scan'> = {
  name: 'deep_ai_scan',
  summary: 'everything semgrep_scan finds, plus whole-application checks over a model of the program (entry points, guards, cross-route facts)',
  families: ['repository', 'application'],
  quotaType: 'deep_ai_scans',
  defaultSeverity: 'low',
  engine: async (options) => {
    const { DeepEngine } = await import('../engines/deep/deep-engine.ts');
    return new DeepEngine(await sastEngineFor(options), options.inCallingThread ? null : undefined);
  },
  // Its static findings are semgrep_scan's, fixed and verified the same way; a whole-application finding
  // has no fixer, and counts as still there while its file is unchanged.
  fixers: semgrepScan.fixers,
  stillDetected: semgrepScan.stillDetected,
};

import path from 'node:path';
import type { ScanTypeDescriptor } from './descriptor.ts';
import { sastEngineFor, semgrepScan } from './semgrep.ts';

export const deepAiScan: ScanTypeDescriptor<'deep_ai_scan'> = {
  name: 'deep_ai_scan',
  summary: 'everything semgrep_scan finds, plus whole-application checks over a model of the program; each finding verified by the model when one is configured',
  families: ['repository', 'application'],
  quotaType: 'deep_ai_scans',
  engine: async (options) => {
    const { DeepEngine } = await import('../deep/deep-engine.ts');
    const { llm, deepReview } = options;
    const review =
      llm && deepReview
        ? {
            provider: async () => (await import('../../llm/create-provider.ts')).createProvider(llm),
            limits: deepReview,
            model: `${llm.provider}:${llm.model}`,
            cacheDir: options.cacheDir ? path.join(options.cacheDir, 'deep-review') : null,
            cacheMaxBytes: options.cacheMaxBytes,
          }
        : undefined;
    return new DeepEngine(await sastEngineFor(options), { pool: options.inCallingThread ? null : undefined, review, enabledChecks: options.checksEnabled });
  },
  // Its static findings are semgrep_scan's, verified the same way (and fixed the same way: fixers match the
  // rule, see src/fixing/fixers/index.ts); a whole-application finding counts as still there while its
  // file is unchanged.
  stillDetected: semgrepScan.stillDetected,
};

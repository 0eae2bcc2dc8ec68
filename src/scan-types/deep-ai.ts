import type { ScanTypeDescriptor } from './descriptor.ts';

export const deepAiScan: ScanTypeDescriptor<'deep_ai_scan'> = {
  name: 'deep_ai_scan',
  summary: 'an LLM review of the code (accepted by the API; this build has no engine for it yet)',
  families: ['repository', 'application'],
  quotaType: 'deep_ai_scans',
  engine: null,
  fixers: async () => [],
  // A model's review cannot be re-run offline: a fix is judged by its other checks (the files still parse).
  stillDetected: async () => async () => false,
};

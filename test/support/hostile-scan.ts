// Every rule's pattern over every hostile input (and the rule's own near miss), in a worker thread: a
// pattern that never returns would hold the test's own thread, where no timeout can stop it; in a worker,
// the test's timeout ends the thread and the test fails instead of hanging.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { allMatches, hostileInputs, nearMiss } from './hostile-inputs.ts';

export interface HostileScan {
  rule: string;
  input: string;
  /** Each match's `secret` group (or whole match), in order. */
  secrets: string[];
}

export const NEAR_MISS = 'the rule\'s own sample without its last character, over and over';

export function scanHostileInputs(): HostileScan[] {
  const inputs = hostileInputs();
  const scans: HostileScan[] = [];
  for (const rule of SECRET_RULES) {
    for (const { name, text } of [...inputs, { name: NEAR_MISS, text: nearMiss(rule) }]) {
      const secrets = allMatches(rule.pattern, text).map((m) => m.groups?.secret ?? m[0]);
      scans.push({ rule: rule.id, input: name, secrets });
    }
  }
  return scans;
}

/** scanHostileInputs in a worker thread, ended when `signal` aborts (the test timed out). */
export function scanHostileInputsInWorker(signal: AbortSignal): Promise<HostileScan[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { hostileScan: true } });
    const stop = () => void worker.terminate();
    signal.addEventListener('abort', stop, { once: true });
    worker.once('message', (scans: HostileScan[]) => {
      signal.removeEventListener('abort', stop);
      void worker.terminate();
      resolve(scans);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the hostile-input scan ended (exit ${code}) before it reported`)));
  });
}

if (!isMainThread && (workerData as { hostileScan?: boolean } | undefined)?.hostileScan) {
  parentPort!.postMessage(scanHostileInputs());
}

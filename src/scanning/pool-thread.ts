import module from 'node:module';
import { parentPort } from 'node:worker_threads';

// A thread of the engine worker pool (worker-pool.ts): runs one named function of a module per message
// and answers with its result or its error.

// Engine modules load type-stripped and compiled from Node's cache after the first thread has loaded them.
module.enableCompileCache();

type Exports = Record<string, (...args: unknown[]) => unknown>;

const modules = new Map<string, Promise<Exports>>();

parentPort!.on('message', async (task: { module: string; fn: string; args: unknown[] }) => {
  try {
    let loaded = modules.get(task.module);
    if (!loaded) modules.set(task.module, (loaded = import(task.module) as Promise<Exports>));
    const fn = (await loaded)[task.fn];
    if (typeof fn !== 'function') throw new Error(`${task.module} has no function ${task.fn}`);
    parentPort!.postMessage({ ok: true, value: await fn(...task.args) });
  } catch (error) {
    const { name, message, stack } = error instanceof Error ? error : new Error(String(error));
    parentPort!.postMessage({ ok: false, error: { name, message, stack } });
  }
});

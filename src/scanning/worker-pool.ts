import os from 'node:os';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { engineThreadsFrom } from '../config.ts';

// Engines do their CPU work (parsing, matching, detection) in worker threads, so a scan never holds the
// event loop of the process that runs it: the API keeps answering while the server or `bulwark worker`
// scans. A task names an exported function of a module; the thread imports the module once and calls the
// function with arguments and a result that structured cloning can carry. One task runs in a thread at a
// time. A thread that dies fails its task with the reason and is replaced; an aborted task stops its thread.

const THREAD_SCRIPT = new URL('./pool-thread.ts', import.meta.url);

/** A task could not be completed because its thread failed (crashed, ran out of memory, was stopped). */
export class EngineThreadError extends Error {
  override name = 'EngineThreadError';
}

interface Task {
  module: string;
  fn: string;
  args: unknown[];
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Thread {
  worker: Worker;
  task?: Task;
}

type Reply = { ok: true; value: unknown } | { ok: false; error: { name: string; message: string; stack?: string } };

export class WorkerPool {
  readonly size: number;
  private readonly resourceLimits: ResourceLimits | undefined;
  private readonly threads = new Set<Thread>();
  private readonly queue: Task[] = [];
  private closed = false;

  /** `resourceLimits` bounds each thread's heap; a thread that runs out fails its task. */
  constructor(size = os.availableParallelism(), options: { resourceLimits?: ResourceLimits } = {}) {
    this.size = Math.max(1, Math.floor(size));
    this.resourceLimits = options.resourceLimits;
  }

  /** Calls `fn` of `module` (a file URL) in a thread with `args`; rejects with the function's own error if it throws. */
  run<T>(module: URL | string, fn: string, args: unknown[], signal?: AbortSignal): Promise<T> {
    if (this.closed) return Promise.reject(new EngineThreadError('the worker pool is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const task: Task = { module: String(module), fn, args, resolve: resolve as (value: unknown) => void, reject, signal };
      if (signal) {
        task.onAbort = () => this.abort(task);
        signal.addEventListener('abort', task.onAbort, { once: true });
      }
      this.queue.push(task);
      this.dispatch();
    });
  }

  /** Stops every thread; queued and running tasks fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) this.settle(task, () => task.reject(new EngineThreadError('the worker pool is closed')));
    await Promise.all(
      [...this.threads].map((thread) => {
        if (thread.task) this.settle(thread.task, () => thread.task!.reject(new EngineThreadError('the worker pool is closed')));
        return thread.worker.terminate();
      }),
    );
    this.threads.clear();
  }

  private dispatch(): void {
    while (this.queue.length) {
      let thread = [...this.threads].find((t) => !t.task);
      if (!thread && this.threads.size < this.size) thread = this.spawn();
      if (!thread) return;
      const task = this.queue.shift()!;
      thread.task = task;
      thread.worker.ref();
      thread.worker.postMessage({ module: task.module, fn: task.fn, args: task.args });
    }
  }

  private spawn(): Thread {
    const thread: Thread = { worker: new Worker(THREAD_SCRIPT, { resourceLimits: this.resourceLimits }) };
    thread.worker.on('message', (reply: Reply) => {
      const task = thread.task;
      thread.task = undefined;
      thread.worker.unref();
      if (task) {
        this.settle(task, () => {
          if (reply.ok) task.resolve(reply.value);
          else task.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name, stack: reply.error.stack }));
        });
      }
      this.dispatch();
    });
    const fail = (reason: string) => {
      if (!this.threads.delete(thread)) return;
      const task = thread.task;
      thread.task = undefined;
      if (task) this.settle(task, () => task.reject(new EngineThreadError(`an analysis thread failed: ${reason}`)));
      this.dispatch();
    };
    thread.worker.on('error', (error) => {
      fail(error.message);
      void thread.worker.terminate();
    });
    thread.worker.on('exit', (code) => fail(`it exited with code ${code}`));
    thread.worker.unref();
    this.threads.add(thread);
    return thread;
  }

  private abort(task: Task): void {
    const queued = this.queue.indexOf(task);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.settle(task, () => task.reject(task.signal!.reason));
      return;
    }
    const thread = [...this.threads].find((t) => t.task === task);
    if (!thread) return;
    // The work is synchronous inside the thread; stopping the thread is the only way to end it now.
    this.threads.delete(thread);
    thread.task = undefined;
    this.settle(task, () => task.reject(task.signal!.reason));
    void thread.worker.terminate();
    this.dispatch();
  }

  private settle(task: Task, outcome: () => void): void {
    if (task.onAbort) task.signal?.removeEventListener('abort', task.onAbort);
    outcome();
  }
}

let shared: WorkerPool | undefined;

/**
 * V8 grows a thread's young generation up to 128 MiB under an engine's allocation rate and keeps it
 * resident: 90 MiB more per thread on a large scan. Capped, the scans cost no more CPU (what a scavenge
 * costs is what survives it, and little does).
 */
const ENGINE_YOUNG_GENERATION_MB = 16;

/** The process's pool for engine work, one thread per available core (BULWARK_ENGINE_THREADS overrides). */
export function enginePool(): WorkerPool {
  shared ??= new WorkerPool(engineThreadsFrom(), { resourceLimits: { maxYoungGenerationSizeMb: ENGINE_YOUNG_GENERATION_MB } });
  return shared;
}

/**
 * The values of tasks in the order given, once every one has settled (so none is still running when a
 * failure ends the scan); the first failure in that order is thrown.
 */
export async function settledInOrder<T>(tasks: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(tasks);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<T>).value);
}

/**
 * `items` cut into batches for the pool's threads: small ones spread a short list over every thread (and
 * let progress advance item by item), up to `max` items, which saves messages on a long list.
 */
export function batchesFor<T>(items: T[], pool: WorkerPool | null, max: number): T[][] {
  const size = Math.max(1, Math.min(max, Math.ceil(items.length / ((pool?.size ?? 1) * 4))));
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}

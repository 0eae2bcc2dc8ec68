import path from 'node:path';
import type { Settings } from './config.ts';
import type { BatchDispatcher } from './core/scan-batches.ts';
import { loadTokenBox, type TokenBox } from './crypto/token-box.ts';
import { defaultEngines } from './engines/registry.ts';
import { storedAdvisories } from './osv/advisories.ts';
import { EmbeddedQueue } from './jobs/embedded-queue.ts';
import { PgBossQueue } from './jobs/pgboss-queue.ts';
import type { JobQueue } from './jobs/queue.ts';
import { createBatchRunner } from './scanning/batch-runner.ts';
import { CheckoutCache } from './scm/checkout-cache.ts';
import type { Store } from './store/database.ts';

/** The long-lived parts a server or worker process assembles from its settings. */
export interface Services {
  queue: JobQueue;
  tokenBox: TokenBox;
  dispatchBatch: BatchDispatcher;
  /** Starts running scan jobs in this process. */
  startWorkers(): Promise<void>;
  close(): Promise<void>;
}

export async function openServices(settings: Settings, store: Store, log?: (message: string, fields?: object) => void): Promise<Services> {
  const queueSettings = { leaseSeconds: settings.jobLeaseSeconds, maxAttempts: settings.jobMaxAttempts };
  const queue: JobQueue =
    store.dialect === 'postgres' && settings.databaseUrl
      ? await PgBossQueue.open(store, settings.databaseUrl, queueSettings)
      : new EmbeddedQueue(store, queueSettings);
  const tokenBox = loadTokenBox(settings.encryptionKey, settings.dataDir);
  const checkouts = new CheckoutCache({
    root: path.join(settings.dataDir, 'git'),
    allowLocal: settings.allowLocalRepos,
    timeoutMs: settings.gitTimeoutSeconds * 1000,
  });
  const runner = createBatchRunner({
    db: store.db,
    tokenBox,
    checkouts,
    engines: defaultEngines({
      secretsHistoryDepth: settings.secretsHistoryDepth,
      sastRuleDirs: settings.sastRuleDirs,
      semgrepConfigs: settings.semgrepConfigs,
      advisories: storedAdvisories(store.db),
    }),
    faultScanDelayMs: settings.faultScanDelayMs,
    log,
  });
  return {
    queue,
    tokenBox,
    dispatchBatch: (trx, batch) => queue.enqueue(trx, 'scan-batch', batch.id),
    startWorkers: () => queue.work('scan-batch', runner, { concurrency: settings.workerConcurrency }),
    close: () => queue.stop(),
  };
}

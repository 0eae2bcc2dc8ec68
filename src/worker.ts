import type { Settings } from './config.ts';
import { listenForMetrics } from './http/metrics.ts';
import { openServices } from './services.ts';
import { openStore } from './store/database.ts';
import { migrateToLatest } from './store/migrate.ts';

export interface RunningWorker {
  /** Where this process serves `GET /metrics`, when BULWARK_WORKER_METRICS_PORT is set. */
  metricsUrl: string | null;
  close(): Promise<void>;
}

/** A process that only runs jobs: start as many as the work needs, on any machine that reaches the database. */
export async function startWorker(settings: Settings, print: (line: string) => void = console.log): Promise<RunningWorker> {
  const store = openStore(settings);
  await migrateToLatest(store);
  const services = await openServices(settings, store, (message, fields) => print(`${message} ${JSON.stringify(fields ?? {})}`));
  await services.startWorkers();
  const metrics = settings.workerMetricsPort === null
    ? null
    : await listenForMetrics(services.metrics, settings.metricsToken, settings.host, settings.workerMetricsPort);
  if (metrics) print(`Bulwark worker metrics at ${metrics.url}`);
  print(`Bulwark worker running ${settings.workerConcurrency} job(s) at a time (database: ${store.location}; jobs: ${services.queue.name})`);
  return {
    metricsUrl: metrics?.url ?? null,
    async close() {
      await metrics?.close();
      await services.close();
      await store.close();
    },
  };
}

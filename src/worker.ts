import type { Settings } from './config.ts';
import { openServices } from './services.ts';
import { openStore } from './store/database.ts';
import { migrateToLatest } from './store/migrate.ts';

export interface RunningWorker {
  close(): Promise<void>;
}

/** A process that only runs jobs: start as many as the work needs, on any machine that reaches the database. */
export async function startWorker(settings: Settings, print: (line: string) => void = console.log): Promise<RunningWorker> {
  const store = openStore(settings);
  await migrateToLatest(store);
  const services = await openServices(settings, store, (message, fields) => print(`${message} ${JSON.stringify(fields ?? {})}`));
  await services.startWorkers();
  print(`Bulwark worker running ${settings.workerConcurrency} job(s) at a time (database: ${store.location}; jobs: ${services.queue.name})`);
  return {
    async close() {
      await services.close();
      await store.close();
    },
  };
}

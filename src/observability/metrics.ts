import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Where gauges read their values at scrape time: the queue and the store, shared by every process. */
export interface MetricSources {
  /** Jobs waiting and running, by kind. */
  queueDepth?: () => Promise<{ kind: string; state: 'queued' | 'running'; count: number }[]>;
  /** Scan batches and fixes by their status, from the database (all processes' work, not just this one's). */
  outcomes?: () => Promise<{ record: 'scan_batch' | 'fix'; type: string; status: string; count: number }[]>;
}

/**
 * The process's Prometheus metrics, built with prom-client (the de facto Node client): request latency
 * per route, job durations and outcomes in this process, and, read from the shared queue and database
 * when scraped, queue depth and scans and fixes by outcome.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly jobDuration: Histogram<'kind' | 'outcome'>;
  readonly jobsGivenUp: Counter<'kind'>;

  constructor(sources: MetricSources = {}) {
    collectDefaultMetrics({ register: this.registry, prefix: 'bulwark_' });
    this.httpDuration = new Histogram({
      name: 'bulwark_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route template and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    this.jobDuration = new Histogram({
      name: 'bulwark_job_duration_seconds',
      help: 'Time one job attempt ran in this process, by kind and outcome (completed or failed)',
      labelNames: ['kind', 'outcome'],
      buckets: [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
      registers: [this.registry],
    });
    this.jobsGivenUp = new Counter({
      name: 'bulwark_jobs_given_up_total',
      help: 'Jobs this process ended after their last attempt failed, by kind',
      labelNames: ['kind'],
      registers: [this.registry],
    });
    const { queueDepth, outcomes } = sources;
    if (queueDepth) {
      new Gauge({
        name: 'bulwark_queue_jobs',
        help: 'Jobs waiting or running, by kind and state',
        labelNames: ['kind', 'state'],
        registers: [this.registry],
        async collect() {
          this.reset();
          for (const row of await queueDepth()) this.set({ kind: row.kind, state: row.state }, row.count);
        },
      });
    }
    if (outcomes) {
      new Gauge({
        name: 'bulwark_records',
        help: 'Scan batches and fixes stored, by record, scan type and status',
        labelNames: ['record', 'type', 'status'],
        registers: [this.registry],
        async collect() {
          this.reset();
          for (const row of await outcomes()) this.set({ record: row.record, type: row.type, status: row.status }, row.count);
        },
      });
    }
  }

  /** Records one finished job attempt. */
  jobFinished(kind: string, outcome: 'completed' | 'failed', seconds: number): void {
    this.jobDuration.observe({ kind, outcome }, seconds);
  }

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

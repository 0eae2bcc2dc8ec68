import { cloneUrlPolicyOf, type Settings } from './config.ts';
import { findingsInOrder, type FixDispatcher, type PullRequestOpener, type SourceBranchCheck } from './core/fixes.ts';
import type { BatchDispatcher } from './core/scan-batches.ts';
import { loadTokenBox, type TokenBox } from './crypto/token-box.ts';
import { defaultEngines } from './scanning/engines.ts';
import { storedAdvisories } from './osv/advisories.ts';
import { startOsvRefresh, type OsvRefresher } from './osv/refresh.ts';
import { EmbeddedQueue } from './jobs/embedded-queue.ts';
import type { EnqueueOptions, JobHandlers, JobKind, JobQueue } from './jobs/queue.ts';
import { observeJobs, type LogFn } from './observability/job-log.ts';
import { Metrics } from './observability/metrics.ts';
import { recordOutcomes } from './observability/record-outcomes.ts';
import { createFixAgent } from './fixing/agent/index.ts';
import { createFixRunner, fixJobKey } from './fixing/fix-runner.ts';
import { fixersWithRules } from './fixing/fixers/index.ts';
import { createPackageRegistry } from './fixing/fixers/dependencies/package-registry.ts';
import { verifyFix } from './fixing/verify.ts';
import { loadRuleSet } from './scanning/sast/rule-set.ts';
import { createScanJobs } from './scanning/batch-runner.ts';
import { createPullRequestOpener } from './scm/pull-requests/opener.ts';
import { CheckoutCache } from './scm/checkout-cache.ts';
import type { Store } from './store/database.ts';
import type { FindingRow } from './store/schema.ts';
import { toFixFinding } from './fixing/fix-finding.ts';
import { deliveryJobs } from './core/code-host-webhooks.ts';
import { pullRequestScanJobs } from './core/pull-request-scans.ts';
import { startOutboundWebhooks, type OutboundWebhookDispatcher } from './outbound-webhooks/dispatcher.ts';
import { startPullRequestPoll } from './core/pull-request-polling.ts';
import { codeHostClients } from './code-hosts/index.ts';
import type { PeriodicTask } from './jobs/periodic-task.ts';

/** The long-lived parts a server or worker process assembles from its settings. */
export interface Services {
  queue: JobQueue;
  tokenBox: TokenBox;
  dispatchBatch: BatchDispatcher;
  dispatchFix: FixDispatcher;
  /** Queues the job that applies a code host's webhook delivery. */
  dispatchDelivery: (trx: Parameters<JobQueue['enqueue']>[0], deliveryRowId: string) => Promise<void>;
  pullRequests: PullRequestOpener;
  agentConfigured: boolean;
  /** Whether a deterministic fixer handles a finding, with the rules the fixes run. */
  hasFixer: (finding: FindingRow) => boolean;
  /** This process's metrics: its requests and jobs, and the shared queue and records when scraped. */
  metrics: Metrics;
  /** Whether a source repository has a branch, asked of the repository itself. */
  sourceBranchExists: SourceBranchCheck;
  /** Starts running scan and fix jobs and applying webhook deliveries in this process, the scheduled OSV refresh and the poll of fix pull requests. */
  startWorkers(): Promise<void>;
  /** The OSV refresh this process's workers run (after startWorkers). */
  osvRefresh?: OsvRefresher;
  close(): Promise<void>;
}

export async function openServices(settings: Settings, store: Store, log: LogFn = () => {}): Promise<Services> {
  const queueSettings = { leaseSeconds: settings.jobLeaseSeconds, maxAttempts: settings.jobMaxAttempts };
  const queue: JobQueue =
    store.dialect === 'postgres' && settings.databaseUrl
      ? await (await import('./jobs/pgboss-queue.ts')).PgBossQueue.open(store, settings.databaseUrl, queueSettings)
      : new EmbeddedQueue(store, queueSettings);
  const tokenBox = loadTokenBox(settings.encryptionKey, settings.dataDir);
  const checkouts = new CheckoutCache({
    root: settings.checkoutDir,
    allowLocal: settings.allowLocalRepos,
    localRoot: settings.localReposRoot,
    allowPrivateHosts: settings.allowPrivateHosts,
    timeoutMs: settings.gitTimeoutSeconds * 1000,
    maxMirrorBytes: settings.checkoutMaxBytes,
    scanBudget: settings.scanBudgets,
  });
  // Checkouts a crashed or killed process on this machine left behind go before this process makes any
  // (workers check out for scans and fixes, API nodes for pull requests).
  await checkouts.cleanLeftovers();
  // Every work tree a job made is removed when the job ends, whatever its outcome.
  const tidy = (handlers: JobHandlers): JobHandlers => ({
    run: (key, context) => checkouts.withinJob(() => handlers.run(key, context)),
    giveUp: (key, reason) => handlers.giveUp(key, reason),
  });
  // Logged inside the transaction that stores the record, so a rolled-back request logs a job that never ran.
  const enqueue = async (trx: Parameters<JobQueue['enqueue']>[0], kind: JobKind, key: string, options?: EnqueueOptions) => {
    await queue.enqueue(trx, kind, key, options);
    log('job queued', { kind, key });
  };
  const engines = defaultEngines({
    secretsHistoryDepth: settings.secretsHistoryDepth,
    secretsVerify: settings.secretsVerify,
    sastRuleDirs: settings.sastRuleDirs,
    semgrepConfigs: settings.semgrepConfigs,
    cacheDir: settings.cacheDir,
    cacheMaxBytes: settings.cacheMaxBytes,
    advisories: storedAdvisories(store.db, { maxAgeHours: settings.osv.maxAgeHours }),
    llm: settings.llm,
    deepReview: settings.deepReview,
    checksEnabled: settings.checksEnabled,
    maxManifestBytes: settings.scanBudgets.maxManifestBytes,
  });
  const scanJobs = createScanJobs({
    enqueue,
    db: store.db,
    tokenBox,
    checkouts,
    engines,
    maxFindings: settings.scanBudgets.maxFindings,
    faultScanDelayMs: settings.faultScanDelayMs,
    log,
  });
  // Fixes rewrite and verify with the same rules the scans ran, operator folders included.
  const ruleSet = () => loadRuleSet(settings.sastRuleDirs);
  const fixerFor = fixersWithRules(ruleSet, {
    registry: createPackageRegistry(settings.packageRegistries),
    advisories: storedAdvisories(store.db),
  });
  const fixRunner = createFixRunner({
    db: store.db,
    tokenBox,
    checkouts,
    fixerFor,
    verify: (dir, findings, files, originals) => verifyFix(dir, findings, files, originals, { ruleSet: ruleSet() }),
    agent: settings.llm ? createFixAgent(settings.llm) : null,
    gitTimeoutMs: settings.gitTimeoutSeconds * 1000,
    faultFixDelayMs: settings.faultFixDelayMs,
    log,
  });
  const metrics = new Metrics({ queueDepth: () => queue.depth(), outcomes: () => recordOutcomes(store.db) });
  let osvRefresh: OsvRefresher | undefined;
  let outboundWebhooks: OutboundWebhookDispatcher | undefined;
  let pullRequestPoll: PeriodicTask | undefined;
  return {
    queue,
    tokenBox,
    metrics,
    dispatchBatch: (trx, batch) => enqueue(trx, 'scan-batch', batch.id),
    dispatchFix: (trx, fixId, run) => enqueue(trx, 'fix-run', fixJobKey(fixId, run)),
    dispatchDelivery: (trx, deliveryRowId) => enqueue(trx, 'code-host-delivery', deliveryRowId),
    pullRequests: createPullRequestOpener({
      findings: (findingIds) => findingsInOrder(store.db, findingIds),
      tokenBox,
      checkouts,
      codeHosts: settings.codeHosts,
      deadlineMs: settings.pullRequestTimeoutSeconds * 1000,
    }),
    agentConfigured: settings.llm !== null,
    hasFixer: (finding) => fixerFor(toFixFinding(finding)) !== undefined,
    sourceBranchExists: (source, branch) =>
      checkouts.branchExists(
        { id: source.id, provider: source.provider, cloneUrl: source.clone_url, token: source.token_ciphertext ? tokenBox.open(source.token_ciphertext) : null },
        branch,
      ),
    async startWorkers() {
      // Planning and concluding a batch are short; the scans themselves take the configured concurrency.
      await queue.work('scan-batch', observeJobs('scan-batch', tidy(scanJobs['scan-batch']), log, metrics), { concurrency: 1 });
      // Scans are grouped by organization: one organization's large batch waits behind its own cap, not others'.
      await queue.work('scan', observeJobs('scan', tidy(scanJobs.scan), log, metrics), {
        concurrency: settings.workerConcurrency,
        groupConcurrency: settings.orgScanConcurrency,
      });
      await queue.work('scan-batch-conclude', observeJobs('scan-batch-conclude', tidy(scanJobs['scan-batch-conclude']), log, metrics), { concurrency: 1 });
      await queue.work('fix-run', observeJobs('fix-run', tidy(fixRunner), log, metrics), { concurrency: settings.workerConcurrency });
      const deliveryDispatch = { batch: (trx: Parameters<JobQueue['enqueue']>[0], batch: { id: string }) => enqueue(trx, 'scan-batch', batch.id), pullRequestScan: (trx: Parameters<JobQueue['enqueue']>[0], scanId: string) => enqueue(trx, 'pull-request-scan', scanId) };
      await queue.work('code-host-delivery', observeJobs('code-host-delivery', deliveryJobs(store.db, deliveryDispatch), log, metrics), { concurrency: 1 });
      const pullRequestScans = pullRequestScanJobs({
        db: store.db,
        tokenBox,
        checkouts,
        engines,
        clients: codeHostClients(settings.codeHosts, settings.pullRequestTimeoutSeconds * 1000),
        publicUrl: settings.publicUrl,
        gitTimeoutMs: settings.gitTimeoutSeconds * 1000,
        log,
      });
      await queue.work('pull-request-scan', observeJobs('pull-request-scan', tidy(pullRequestScans), log, metrics), { concurrency: settings.workerConcurrency });
      pullRequestPoll = startPullRequestPoll(store.db, {
        tokenBox,
        clients: codeHostClients(settings.codeHosts, settings.pullRequestTimeoutSeconds * 1000),
        everyMs: settings.pullRequestPollMinutes * 60_000,
        log,
      });
      osvRefresh = startOsvRefresh(store.db, { baseUrl: settings.osv.url, intervalMs: settings.osv.syncHours * 3_600_000, log });
      // Finding events to the organizations' webhook endpoints (outbound-webhooks/dispatcher.ts).
      outboundWebhooks = startOutboundWebhooks(store.db, { tokenBox, allowPrivateHosts: cloneUrlPolicyOf(settings).allowPrivateHosts, log });
    },
    get osvRefresh() {
      return osvRefresh;
    },
    async close() {
      await pullRequestPoll?.stop();
      await outboundWebhooks?.stop();
      await osvRefresh?.stop();
      await queue.stop();
    },
  };
}

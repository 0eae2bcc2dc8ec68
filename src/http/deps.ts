import type { TokenBox } from '../crypto/token-box.ts';
import type { OidcSignIn } from '../identity/oidc.ts';
import type { CloneUrlPolicy } from '../scm/clone-url.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { FixDispatcher, PullRequestOpener, SourceBranchCheck } from '../core/fixes.ts';
import type { BatchDispatcher } from '../core/scan-batches.ts';
import type { Store } from '../store/database.ts';
import type { Kysely } from 'kysely';
import type { Database, FindingRow } from '../store/schema.ts';

/** What routes need from the rest of the service. */
export interface Deps {
  store: Store;
  pullRequests: PullRequestOpener;
  dispatchBatch: BatchDispatcher;
  dispatchFix: FixDispatcher;
  /** Queues the job that applies a code host's webhook delivery (by its row id). */
  dispatchDelivery: (trx: Kysely<Database>, deliveryRowId: string) => Promise<void>;
  /** Whether an LLM agent is configured, which refinements need. */
  agentConfigured: boolean;
  /** Whether a deterministic fixer handles a finding (with the server's SAST rules). */
  hasFixer: (finding: FindingRow) => boolean;
  /** The process's metrics, served at /metrics; none in tests of the API alone. */
  metrics?: Metrics;
  /** A Bearer token /metrics requires; null serves it to anyone who reaches the port. */
  metricsToken?: string | null;
  /** Whether a source repository has a branch; without it a fix's `source_scan_branch` is only checked for form. */
  sourceBranchExists?: SourceBranchCheck;
  /** BULWARK_PUBLIC_URL: the address people open the console at, for links the server hands out; null: the request's own. */
  publicUrl?: string | null;
  /** Sign-in through an OpenID Connect provider (BULWARK_OIDC_*); null: passwords only. */
  oidc?: OidcSignIn | null;
  /** What registering a repository in the console needs: the key its access token is sealed with, and the clone URL rules. */
  registration?: { tokenBox: TokenBox; cloneUrlPolicy: CloneUrlPolicy } | null;
}

import type { ScanType } from '../scan-type-names.ts';
import type { DeepReviewSettings, LlmSettings } from '../../config.ts';
import type { QuotaType } from '../../core/quotas.ts';
import type { RuleSet } from '../sast/rule-set.ts';
import type { ScanEngine } from '../engine.ts';
import type { AdvisoryLookup } from '../../osv/advisories.ts';
import type { FixFinding } from '../../fixing/types.ts';
import type { TreeTexts } from '../../fixing/tree-texts.ts';
import type { SecretsVerifySettings } from '../secrets/verify/settings.ts';

/** The two route families: a repository, and an application that groups several repositories. */
export type RouteFamily = 'repository' | 'application';

export interface EngineOptions {
  secretsHistoryDepth: number;
  /** Live validity checks of found credentials; none when absent or not enabled. */
  secretsVerify?: SecretsVerifySettings | null;
  sastRuleDirs?: string[];
  semgrepConfigs?: string[];
  /** Where engines keep results between scans; nothing is kept when absent. */
  cacheDir?: string;
  cacheMaxBytes?: number;
  /** Vulnerability records for `sbom_scan`; without them it inventories dependencies and matches none. */
  advisories?: AdvisoryLookup;
  /**
   * Run engine work in the calling thread rather than the engine thread pool: for a small local scan, where
   * starting threads costs more than it saves. Never for the service, whose event loop must stay free.
   */
  inCallingThread?: boolean;
  /** The model a deep scan's review asks, and what the review may spend; no review without a model. */
  llm?: LlmSettings | null;
  deepReview?: DeepReviewSettings;
  /** Rules and whole-application checks that are off by default, turned on (their ids). */
  checksEnabled?: string[];
  /** Largest manifest or lockfile `sbom_scan` parses; larger ones are skipped with a warning. */
  maxManifestBytes?: number;
}

/**
 * Whether a finding is still there in a patched tree, judged the way its engine would judge it.
 * `tree` holds the files now and before the fix; `ruleSet` is the SAST rule set the scan ran.
 */
export type StillDetected = (finding: FixFinding, tree: TreeTexts, ruleSet: RuleSet) => Promise<boolean>;

/**
 * Everything the service knows about one scan type. The heavy parts (engine, verification)
 * are loaded on first use, so reading the registry (CLI help, request validation) stays cheap.
 */
export interface ScanTypeDescriptor<N extends ScanType = ScanType> {
  /** The wire name, as the contract spells it. */
  name: N;
  /** One line for CLI help and the README. */
  summary: string;
  /** The route families whose scan requests accept this type. */
  families: readonly RouteFamily[];
  /** The credit one scan of this type takes. */
  quotaType: QuotaType;
  /** The engine that runs it on this build; null when the build has none (a batch then fails with its credit returned). */
  engine: ((options: EngineOptions) => Promise<ScanEngine>) | null;
  /** How a fix of one of its findings is verified. */
  stillDetected: () => Promise<StillDetected>;
}

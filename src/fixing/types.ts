import type { AdvisoryLookup } from '../osv/advisories.ts';
import type { ScanType } from '../scanning/scan-type-names.ts';
import type { PackageRegistry } from './fixers/dependencies/package-registry.ts';
import type { Usage } from '../llm/provider.ts';
import type { RepoFacts } from './repo-facts.ts';

/** A finding as a fix works on it: where it is, what found it, and what the engine recorded about it. */
export interface FixFinding {
  id: string;
  scanType: ScanType;
  /** The rule that reported it: what decides which fixer applies (see fixers/index.ts). */
  checkId: string;
  /** The kind its engine gave it (`secrets`, `dependency`, a SAST rule's category); absent where not known. */
  category?: string;
  severity: string;
  title: string | null;
  message: string;
  /** Repository-relative POSIX path. */
  filePath: string;
  startLine: number | null;
  endLine: number | null;
  cwe: string[];
  /** What the engine stored: for dependencies `package`, `ecosystem`, `installed_version`, `fixed_version`… */
  metadata: Record<string, unknown>;
}

/** What a fix step can use: the writable work tree and a way to say it made progress. */
export interface FixWorkspace {
  /** Absolute path of the work tree, checked out at the fix's base commit. */
  dir: string;
  signal: AbortSignal;
  /** Called once per completed fixer or agent step; it is the fix's heartbeat. */
  step(): Promise<void>;
  /** What the repository declares about itself (versions, frameworks, settings, start), read once per run; see repo-facts.ts and `factsOf()`. */
  facts?: () => Promise<RepoFacts>;
}

export interface FixerOutcome {
  /** Whether the fixer changed the tree so that the finding should be gone. */
  fixed: boolean;
  /** Repository-relative paths it wrote. */
  changedFiles: string[];
  /** Why it could not fix, or what it did, in one sentence for the fix's record. */
  note: string;
  /** What the user must still do once the fix is merged (variables to set, credentials to rotate), one sentence each. */
  userNotes?: string[];
}

/** The outcome of a fixer that wrote nothing, with why. */
export function notFixed(note: string): FixerOutcome {
  return { fixed: false, changedFiles: [], note };
}

/** What a run did about one finding of its fix, as the fix's response shows it. */
export interface FindingOutcome {
  finding_id: string;
  fixed: boolean;
  detail: string;
}

/** What the service lends fixers that look beyond the work tree; each has a default for tools and tests. */
export interface FixerServices {
  /** The package registries dependency fixes resolve against (default: the public ones). */
  registry?: PackageRegistry;
  /** The stored advisories, so a dependency fix lands on a version clear of all of them. */
  advisories?: AdvisoryLookup;
}

/** A deterministic fixer: the findings of some rules, no model, the same result every time. */
export interface Fixer {
  readonly name: string;
  /** Whether it fixes the finding, judged by its rule (check id, category, what the engine recorded), never its scan type. */
  handles(finding: FixFinding): boolean;
  apply(finding: FixFinding, workspace: FixWorkspace): Promise<FixerOutcome>;
}

export interface VerificationResult {
  /** Findings the originating engine still reports in the patched files, by finding id. */
  stillDetected: string[];
  /** Patched files that no longer parse, with the parser's reason. */
  unparsable: { file: string; reason: string }[];
}

export type AgentUsage = Usage;

export interface AgentRunInput {
  workspace: FixWorkspace;
  findings: FixFinding[];
  /** The fix's own instructions, then each refinement's, oldest first. */
  instructions: string[];
  /** Re-runs the originating engines on files and says what they still find, for the agent's tool. */
  rescan(files: string[]): Promise<string>;
}

export interface AgentRunResult {
  changedFiles: string[];
  /** The agent's closing summary, kept out of progress (a heartbeat carries no message content). */
  summary: string;
  usage: AgentUsage;
  steps: number;
}

/** An LLM-driven fixer for what no deterministic fixer handles, and for refinements. */
export interface FixAgent {
  run(input: AgentRunInput): Promise<AgentRunResult>;
}

/** A refusal to apply in a fix's `error_message`: safe to show, never containing a secret. */
export class FixError extends Error {
  /** True when the caller's own doing made the fix impossible (its source repository was removed): the credit stays spent. */
  readonly callerCaused: boolean;
  constructor(message: string, options: { callerCaused?: boolean } = {}) {
    super(message);
    this.callerCaused = options.callerCaused ?? false;
  }
}

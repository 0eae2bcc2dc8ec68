import type { SgNode } from '@ast-grep/napi';
import type { ParserName } from '../../../../languages/index.ts';
import type { RepoFacts } from '../../../repo-facts.ts';
import type { TextEdit } from '../../shared/text-edits.ts';

// A codemod rewrites one SAST finding the way a reviewer would: it gets the file parsed once and the node
// the rule reported, and answers with edits, or with the reason it cannot fix this occurrence safely.
// The codemod fixer checks every answer before writing it (see codemod-fixer.ts).

export interface CodemodContext {
  /** The rule whose finding is fixed. */
  rule: string;
  /** Repository-relative path of the file. */
  file: string;
  parser: ParserName;
  text: string;
  /** The file's syntax tree; null for templates, which are read as text. */
  root: SgNode | null;
  /** The node the rule reported; null for templates. */
  node: SgNode | null;
  /** Where the reported match is in `text`. */
  match: { start: number; end: number; text: string };
  /** Reads another file of the repository (null when absent), e.g. to see which libraries it depends on. */
  readFile(relative: string): Promise<string | null>;
  /** The repository's files (repository-relative, dependency and VCS folders left out), to look for what the app does elsewhere. */
  files(): Promise<string[]>;
  /** What the repository declares about itself: interpreter and package versions (see repo-facts.ts). */
  facts(): Promise<RepoFacts>;
}

export interface CodemodEdits {
  edits: CodemodEdit[];
  /** What the rewrite did, in one sentence for the fix's record (and what the user must still do). */
  note: string;
  /** Environment variables the rewritten code requires: the fix's notes say to set them and where to list them. */
  variables?: string[];
}

/**
 * An edit and what it belongs to: the finding's own statement, a statement the codemod names because the
 * finding's value is built there (`related`), or an import or helper added at the top level.
 */
export interface CodemodEdit extends TextEdit {
  /** A statement besides the finding's own that this edit rewrites (a query assembled before the call). */
  related?: SgNode;
  /** An import or a helper inserted between top-level statements. */
  topLevel?: boolean;
}

export type CodemodAnswer = CodemodEdits | { refuse: string };

export interface Codemod {
  /** `<language>/<what it does>`, e.g. `python/shell-argv`. */
  readonly name: string;
  /** The rule ids it fixes. */
  readonly rules: readonly string[];
  rewrite(context: CodemodContext): CodemodAnswer | Promise<CodemodAnswer>;
}

export const refuse = (reason: string): CodemodAnswer => ({ refuse: reason });

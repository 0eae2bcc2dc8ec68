import type { Kysely } from 'kysely';
import { CODE_HOST_NAMES, codeHostCalled, codeHostNamed, type CodeHostName } from '../code-hosts/index.ts';
import type { TokenBox } from '../crypto/token-box.ts';
import { nowIso } from '../ids.ts';
import { branchNameProblem } from '../scm/pull-requests/branch-name.ts';
import type { Database, SourceRepoRow } from '../store/schema.ts';
import { setSourceTokenCiphertext } from '../store/units.ts';
import { notFound } from './errors.ts';

export interface SourceSpec {
  provider: CodeHostName;
  fullName: string;
  branch: string;
  cloneUrl?: string;
  htmlUrl?: string;
  token?: string;
}

/** Parses `host:owner/name[@branch]`, the form operators type for `repo add --source`; the host is a name or alias of one in src/code-hosts. */
export function parseSourceSpec(text: string): SourceSpec {
  const match = /^([a-z_]+):([^@\s]+?)(?:@([^\s]+))?$/.exec(text.trim());
  const host = match ? codeHostCalled(match[1]) : undefined;
  if (!match || !host) {
    throw new Error(`invalid source "${text}": expected provider:owner/name[@branch] with provider one of ${CODE_HOST_NAMES.join(', ')}`);
  }
  const fullName = match[2].replace(/\.git$/, '');
  const segments = fullName.split('/');
  if (segments.length < host.repository.segments || segments.some((s) => !s || s === '.' || s === '..')) {
    throw new Error(`invalid source "${text}": ${host.name} repositories are named ${host.repository.form}`);
  }
  const branch = match[3] || 'main';
  const problem = branchNameProblem(branch);
  if (problem) throw new Error(`invalid source "${text}": "${branch}" is not a valid branch name: ${problem}`);
  return { provider: host.name, fullName, branch };
}

/** Where a repository lives on its host's public cloud, used when no explicit URL is given. */
export function defaultUrls(provider: CodeHostName, fullName: string): { cloneUrl: string; htmlUrl: string } {
  return codeHostNamed(provider)!.urls(fullName);
}

/** What may be said about a source's access token: whether one is stored and when it last changed, never the token. */
export interface SourceTokenState {
  has_token: boolean;
  token_changed_at: string | null;
}

export function sourceTokenState(source: Pick<SourceRepoRow, 'token_ciphertext' | 'token_changed_at'>): SourceTokenState {
  return { has_token: source.token_ciphertext !== null, token_changed_at: source.token_changed_at };
}

export const MAX_TOKEN_LENGTH = 4000;

/** A token that cannot be stored: empty, too long, or holding whitespace or control characters (no host's token has them). */
export class InvalidTokenError extends Error {}

function checkToken(token: string): void {
  if (!token) throw new InvalidTokenError('the access token is empty');
  if (token.length > MAX_TOKEN_LENGTH) throw new InvalidTokenError(`the access token is longer than ${MAX_TOKEN_LENGTH} characters`);
  if (/[\s\u0000-\u001f\u007f]/.test(token)) throw new InvalidTokenError('the access token holds spaces, line breaks or control characters');
}

/**
 * Sets, replaces (`token`) or removes (null) the access token of one source of a unit, sealed with the
 * server's key as at registration; 404 when the source is not the unit's, `InvalidTokenError` for a
 * token no host would issue. The caller records who did it.
 */
export async function setSourceToken(
  db: Kysely<Database>,
  tokenBox: TokenBox,
  unit: { id: string },
  sourceId: string,
  token: string | null,
): Promise<SourceRepoRow> {
  if (token !== null) checkToken(token);
  const updated = await setSourceTokenCiphertext(db, unit.id, sourceId, token === null ? null : tokenBox.seal(token), nowIso());
  if (!updated) throw notFound('Source repository');
  return updated;
}

import crypto from 'node:crypto';
import pLimit from 'p-limit';
import type { RawFinding } from '../../engine.ts';
import type { WorkerPool } from '../../worker-pool.ts';
import { providerHttp, Unanswered, verdict, type Verdict } from './http.ts';
import { providerForRule, type FoundSecret } from './providers.ts';
import * as reread from './reread.ts';
import type { FileRef, FileSecrets } from './reread.ts';
import type { SecretsVerifySettings } from './settings.ts';

export interface VerifyInput {
  dir: string;
  gitDir?: string;
  fingerprintKey: Buffer;
  signal?: AbortSignal;
}

const REREAD = new URL('./reread.ts', import.meta.url);
const REREAD_BATCH = 64;
const OUT_OF_TIME = verdict('unknown', "the scan's time for live checks ran out");

/**
 * Checks the credentials behind secrets findings with their providers and records the outcome in each
 * finding's metadata (`validity`, `validity_reason`); a credential the provider accepts ranks critical.
 * Findings carry no secret in clear, so each file is read again (from the tree, or for a history finding
 * from its commit; in `pool`'s threads when given) and the detector's match with the finding's keyed hash
 * is taken. Each credential is checked once however often it occurs, at most `concurrency` at a time,
 * and all within `budgetMs`: a check still running or not started by then is `unknown`. Nothing here logs.
 */
export async function verifyFindings(findings: RawFinding[], input: VerifyInput, settings: SecretsVerifySettings, pool: WorkerPool | null = null): Promise<void> {
  const checked = findings.filter((f) => f.category === 'secrets' && typeof f.metadata.rule === 'string');
  const whereOf = (f: RawFinding): FileRef => ({ filePath: f.filePath, commit: f.metadata.source === 'history' ? f.commitSha : null });
  const keyOf = (ref: FileRef) => `${ref.commit ?? ''}\0${ref.filePath}`;
  const refs = new Map<string, FileRef>();
  for (const finding of checked) {
    if (!providerForRule(String(finding.metadata.rule))) continue;
    const ref = whereOf(finding);
    refs.set(keyOf(ref), ref);
  }
  const files = await rereadAll([...refs.values()], input, pool);

  const outOfTime = AbortSignal.timeout(settings.budgetMs);
  const http = providerHttp(settings, input.signal ? AbortSignal.any([input.signal, outOfTime]) : outOfTime);
  const limit = pLimit(Math.max(1, settings.concurrency));
  const runCheck = async (check: () => Promise<Verdict>): Promise<Verdict> => {
    if (outOfTime.aborted) return OUT_OF_TIME;
    try {
      return await check();
    } catch (error) {
      if (input.signal?.aborted) throw error;
      if (outOfTime.aborted) return OUT_OF_TIME;
      // Nothing of the error is kept: a library's message could hold a URL or header.
      return verdict('unknown', error instanceof Unanswered ? error.message : 'the check failed');
    }
  };
  const checks = new Map<string, Promise<Verdict>>();
  await Promise.all(
    checked.map(async (finding) => {
      const ruleId = String(finding.metadata.rule);
      const provider = providerForRule(ruleId);
      let outcome: Verdict;
      if (!provider) {
        outcome = verdict('unknown', 'no live check for this kind of credential');
      } else {
        const found = foundSecret(files.get(keyOf(whereOf(finding))), ruleId, String(finding.metadata.secret_hash ?? ''));
        const prepared = found ? provider.prepare(found) : verdict('unknown', 'the credential could not be read again');
        if ('validity' in prepared) {
          outcome = prepared;
        } else {
          const identity = crypto.createHash('sha256').update([provider.id, ...prepared.identity].join('\0')).digest('hex');
          let check = checks.get(identity);
          if (!check) checks.set(identity, (check = limit(() => runCheck(() => prepared.check(http)))));
          outcome = await check;
        }
      }
      finding.metadata = { ...finding.metadata, validity: outcome.validity, validity_reason: outcome.reason };
      if (outcome.validity === 'valid') finding.severity = 'critical';
    }),
  );
}

/** Every file's credentials, by file key; read in the pool's threads when there is one. */
async function rereadAll(refs: FileRef[], input: VerifyInput, pool: WorkerPool | null): Promise<Map<string, FileSecrets | null>> {
  const batches: FileRef[][] = [];
  for (let i = 0; i < refs.length; i += REREAD_BATCH) batches.push(refs.slice(i, i + REREAD_BATCH));
  const args = (batch: FileRef[]) => [input.dir, input.gitDir ?? null, batch, input.fingerprintKey];
  const results = await Promise.all(
    batches.map((batch) =>
      pool
        ? pool.run<(FileSecrets | null)[]>(REREAD, 'rereadFiles', args(batch), input.signal)
        : reread.rereadFiles(input.dir, input.gitDir ?? null, batch, input.fingerprintKey),
    ),
  );
  const out = new Map<string, FileSecrets | null>();
  batches.forEach((batch, i) => batch.forEach((ref, j) => out.set(`${ref.commit ?? ''}\0${ref.filePath}`, results[i]![j]!)));
  return out;
}

function foundSecret(file: FileSecrets | null | undefined, ruleId: string, hash: string): FoundSecret | undefined {
  const own = file?.matches.find((m) => m.ruleId === ruleId && m.hash === hash);
  if (!file || !own) return undefined;
  return { ruleId, secret: own.secret, text: file.text, offset: own.offset, others: file.matches };
}

import crypto from 'node:crypto';
import path from 'node:path';
import pLimit from 'p-limit';
import type { RawFinding } from '../../engine.ts';
import { readSourceText } from '../../source-files.ts';
import { git } from '../../../scm/git-command.ts';
import { detectSecrets, type SecretMatch } from '../detector.ts';
import { providerHttp, Unanswered, verdict, type Verdict } from './http.ts';
import { providerForRule, type FoundSecret } from './providers.ts';
import type { SecretsVerifySettings } from './settings.ts';

export interface VerifyInput {
  dir: string;
  gitDir?: string;
  fingerprintKey: Buffer;
  signal?: AbortSignal;
}

/**
 * Checks the credentials behind secrets findings with their providers and records the outcome in each
 * finding's metadata (`validity`, `validity_reason`); a credential the provider accepts ranks critical.
 * Findings carry no secret in clear, so each file is read again (from the tree, or for a history finding
 * from its commit) and the detector's match with the finding's keyed hash is taken. Each credential is
 * checked once however often it occurs, at most `concurrency` at a time; nothing here logs.
 */
export async function verifyFindings(findings: RawFinding[], input: VerifyInput, settings: SecretsVerifySettings): Promise<void> {
  const http = providerHttp(settings, input.signal);
  const limit = pLimit(Math.max(1, settings.concurrency));
  const checks = new Map<string, Promise<Verdict>>();
  const files = new Map<string, Promise<FileSecrets | undefined>>();
  const jobs = findings.map(async (finding) => {
    const ruleId = typeof finding.metadata.rule === 'string' ? finding.metadata.rule : undefined;
    if (finding.category !== 'secrets' || !ruleId) return;
    let outcome: Verdict;
    const provider = providerForRule(ruleId);
    if (!provider) {
      outcome = verdict('unknown', 'no live check for this kind of credential');
    } else {
      const where = `${finding.commitSha ?? ''}\0${finding.filePath}`;
      let file = files.get(where);
      if (!file) files.set(where, (file = secretsOfFile(finding, input)));
      const found = foundSecret(await file, ruleId, String(finding.metadata.secret_hash ?? ''));
      const prepared = found ? provider.prepare(found) : verdict('unknown', 'the credential could not be read again');
      if ('validity' in prepared) {
        outcome = prepared;
      } else {
        const identity = crypto.createHash('sha256').update([provider.id, ...prepared.identity].join('\0')).digest('hex');
        let check = checks.get(identity);
        if (!check) checks.set(identity, (check = limit(() => runCheck(() => prepared.check(http), input.signal))));
        outcome = await check;
      }
    }
    finding.metadata = { ...finding.metadata, validity: outcome.validity, validity_reason: outcome.reason };
    if (outcome.validity === 'valid') finding.severity = 'critical';
  });
  await Promise.all(jobs);
}

async function runCheck(check: () => Promise<Verdict>, signal?: AbortSignal): Promise<Verdict> {
  try {
    return await check();
  } catch (error) {
    if (signal?.aborted) throw error;
    // Nothing of the error is kept: a library's message could hold a URL or header.
    return verdict('unknown', error instanceof Unanswered ? error.message : 'the check failed');
  }
}

interface FileSecrets {
  text: string;
  matches: { ruleId: string; secret: string; offset: number; hash: string }[];
}

/** The credentials the detector finds in a finding's file: the tree's copy, or its commit's for a history finding. */
async function secretsOfFile(finding: RawFinding, input: VerifyInput): Promise<FileSecrets | undefined> {
  let text: string | undefined;
  try {
    if (finding.commitSha && finding.metadata.source === 'history') {
      if (!input.gitDir) return undefined;
      text = await git(['--git-dir', input.gitDir, 'cat-file', 'blob', `${finding.commitSha}:${finding.filePath}`], {
        timeoutMs: 60_000,
        signal: input.signal,
        maxBuffer: 8 * 1024 * 1024,
      });
    } else {
      const absolute = path.resolve(input.dir, finding.filePath);
      if (!absolute.startsWith(path.resolve(input.dir) + path.sep)) return undefined;
      const source = await readSourceText(absolute);
      if ('skipped' in source) return undefined;
      text = source.text;
    }
  } catch (error) {
    if (input.signal?.aborted) throw error;
    return undefined;
  }
  // The path lets rules that read the file's name (an .npmrc, a .pgpass) fire as they did in the scan.
  const detect = detectSecrets as (text: string, filePath?: string) => SecretMatch[];
  const matches = detect(text, finding.filePath).map((m) => ({
    ruleId: m.rule.id,
    secret: m.secret,
    offset: m.offset,
    // The engine's keyed hash of the credential (scan-texts.ts), to find the finding's own match.
    hash: crypto.createHmac('sha256', input.fingerprintKey).update(m.secret.replace(/\s+/g, '')).digest('hex'),
  }));
  return { text, matches };
}

function foundSecret(file: FileSecrets | undefined, ruleId: string, hash: string): FoundSecret | undefined {
  const own = file?.matches.find((m) => m.ruleId === ruleId && m.hash === hash);
  if (!file || !own) return undefined;
  return { ruleId, secret: own.secret, text: file.text, offset: own.offset, others: file.matches };
}

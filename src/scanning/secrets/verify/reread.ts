import crypto from 'node:crypto';
import { git } from '../../../scm/git-command.ts';
import { readSourceText } from '../../source-files.ts';
import { detectSecrets, type SecretMatch } from '../detector.ts';

// Reading the credentials of findings again, for their checks: findings keep no secret in clear. Run in a
// thread of the engine pool (see runner.ts), so detection stays off the event loop that answers requests.

/** A file a finding is in: the scanned tree's copy, or for a history finding its commit's. */
export interface FileRef {
  filePath: string;
  commit: string | null;
}

export interface FileSecrets {
  text: string;
  matches: { ruleId: string; secret: string; offset: number; hash: string }[];
}

/** The credentials the detector finds in each file (null for one that can no longer be read). */
export async function rereadFiles(dir: string, gitDir: string | null, files: FileRef[], key: Uint8Array): Promise<(FileSecrets | null)[]> {
  const out: (FileSecrets | null)[] = [];
  for (const file of files) out.push(await rereadFile(dir, gitDir, file, key));
  return out;
}

async function rereadFile(dir: string, gitDir: string | null, file: FileRef, key: Uint8Array): Promise<FileSecrets | null> {
  let text: string;
  try {
    if (file.commit) {
      if (!gitDir) return null;
      text = await git(['--git-dir', gitDir, 'cat-file', 'blob', `${file.commit}:${file.filePath}`], { timeoutMs: 60_000, maxBuffer: 8 * 1024 * 1024 });
    } else {
      const source = await readSourceText(dir, file.filePath);
      if ('skipped' in source) return null;
      text = source.text;
    }
  } catch {
    return null;
  }
  // The path lets rules that read the file's name (an .npmrc, a .pgpass) fire as they did in the scan.
  const detect = detectSecrets as (text: string, filePath?: string) => SecretMatch[];
  const matches = detect(text, file.filePath).map((m) => ({
    ruleId: m.rule.id,
    secret: m.secret,
    offset: m.offset,
    // The engine's keyed hash of the credential (scan-texts.ts), to find each finding's own match.
    hash: crypto.createHmac('sha256', key).update(m.secret.replace(/\s+/g, '')).digest('hex'),
  }));
  return { text, matches };
}

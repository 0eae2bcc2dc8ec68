// Runs the `search` tool in a worker thread, so that a regular expression that backtracks
// catastrophically on some file can be stopped by terminating the thread instead of hanging the process.
import { parentPort, workerData } from 'node:worker_threads';
import { readTreeBytes, walkTree, type TreePath } from '../../scm/work-tree.ts';

export interface SearchRequest {
  root: string;
  start: TreePath;
  startIsFile: boolean;
  pattern: string;
  regex: boolean;
  ignoreCase: boolean;
  maxResults: number;
  maxFiles: number;
  maxFileBytes: number;
  maxLineChars: number;
}

export interface SearchReply {
  lines: string[];
  /** More matches exist than `maxResults`. */
  truncated: boolean;
  filesSearched: number;
  /** Files passed over as binary or too large. */
  filesSkipped: number;
}

export async function search(request: SearchRequest): Promise<SearchReply> {
  const matches = buildMatcher(request);
  const reply: SearchReply = { lines: [], truncated: false, filesSearched: 0, filesSkipped: 0 };
  const files = request.startIsFile
    ? [{ rel: request.start.rel, kind: 'file' as const }]
    : walkTree(request.root, request.start.rel, { maxEntries: request.maxFiles });
  for await (const file of files) {
    if (file.kind !== 'file') continue;
    const content = await readTreeBytes(request.root, file.rel, request.maxFileBytes).then((read) => read?.bytes, () => undefined);
    if (!content) {
      reply.filesSkipped++;
      continue;
    }
    if (content.subarray(0, 8192).includes(0)) {
      reply.filesSkipped++;
      continue;
    }
    reply.filesSearched++;
    const lines = content.toString('utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
      if (!matches(line)) continue;
      if (reply.lines.length >= request.maxResults) {
        reply.truncated = true;
        return reply;
      }
      const shown = line.length > request.maxLineChars ? `${line.slice(0, request.maxLineChars)}…` : line;
      reply.lines.push(`${file.rel}:${i + 1}: ${shown}`);
    }
  }
  return reply;
}

function buildMatcher(request: SearchRequest): (line: string) => boolean {
  if (request.regex) {
    const re = new RegExp(request.pattern, request.ignoreCase ? 'i' : '');
    return (line) => re.test(line);
  }
  if (request.ignoreCase) {
    const needle = request.pattern.toLowerCase();
    return (line) => line.toLowerCase().includes(needle);
  }
  return (line) => line.includes(request.pattern);
}

if (parentPort && workerData?.bulwarkSearch) {
  const port = parentPort;
  search(workerData.bulwarkSearch as SearchRequest).then(
    (reply) => port.postMessage({ ok: true, reply }),
    (err: unknown) => port.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) }),
  );
}

import { Worker } from 'node:worker_threads';
import { untrustedBlock } from '../untrusted.ts';
import { resolveInTree } from '../../scm/work-tree.ts';
import { isFolder, TOOL_LIMITS, ToolRefused, type Args, type RepoToolContext } from './context.ts';
import type { SearchReply, SearchRequest } from './search-worker.ts';

/** `search`: matching lines of the tree's text files, found in a worker thread under a time limit. */
export async function searchFiles(ctx: RepoToolContext, args: Args): Promise<string> {
  const pattern = args.string('pattern');
  if (pattern === '') throw new ToolRefused('pattern must not be empty');
  const regex = args.optionalBoolean('regex') ?? false;
  const ignoreCase = args.optionalBoolean('ignore_case') ?? false;
  if (regex) {
    try {
      new RegExp(pattern, ignoreCase ? 'i' : '');
    } catch (err) {
      throw new ToolRefused(`pattern is not a valid JavaScript regular expression: ${(err as Error).message}`);
    }
  }
  const start = await resolveInTree(ctx.root, args.optionalString('path') ?? '');
  if (!start.exists) throw new ToolRefused(`"${start.rel}" does not exist`);
  const request: SearchRequest = {
    root: ctx.root,
    start,
    startIsFile: !(await isFolder(start)),
    pattern,
    regex,
    ignoreCase,
    maxResults: TOOL_LIMITS.searchResults,
    maxFiles: TOOL_LIMITS.searchFiles,
    maxFileBytes: TOOL_LIMITS.searchFileBytes,
    maxLineChars: TOOL_LIMITS.searchLineChars,
  };
  const timeoutMs = ctx.searchTimeoutMs;
  const reply = await runSearch(request, timeoutMs, ctx.signal);
  if (reply === 'timeout') {
    throw new ToolRefused(`the search did not finish within ${Math.round(timeoutMs / 1000)} seconds; use a simpler pattern or a narrower path`);
  }
  const searched = `${reply.filesSearched} file${reply.filesSearched === 1 ? '' : 's'} searched${reply.filesSkipped ? `, ${reply.filesSkipped} binary or large files skipped` : ''}`;
  if (reply.lines.length === 0) return `No matches (${searched}).`;
  const block = untrustedBlock('search', { pattern, path: start.rel || '.' }, reply.lines.map((line) => ctx.veil.hide(line)).join('\n'), ctx.boundary);
  const more = reply.truncated ? `; more matches not shown, narrow the pattern or the path` : '';
  return `${block}\n${reply.lines.length} matching lines (${searched})${more}.`;
}

/** Runs a search in a worker thread that is terminated when it takes longer than `timeoutMs` or the run is aborted. */
function runSearch(request: SearchRequest, timeoutMs: number, signal: AbortSignal | undefined): Promise<SearchReply | 'timeout'> {
  if (signal?.aborted) return Promise.reject(new ToolRefused('the search was cancelled'));
  const worker = new Worker(new URL('./search-worker.ts', import.meta.url), {
    workerData: { bulwarkSearch: request },
    resourceLimits: { maxOldGenerationSizeMb: 256 },
  });
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (action: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      action();
    };
    const onAbort = () => settle(() => reject(new ToolRefused('the search was cancelled')));
    const timer = setTimeout(() => settle(() => resolve('timeout')), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (message: { ok: true; reply: SearchReply } | { ok: false; message: string }) =>
      settle(() => (message.ok ? resolve(message.reply) : reject(new ToolRefused(`the search failed: ${message.message}`)))),
    );
    worker.once('error', (err) => settle(() => reject(new ToolRefused(`the search failed: ${err.message}`))));
    worker.once('exit', () => settle(() => reject(new ToolRefused('the search stopped without an answer'))));
  });
}

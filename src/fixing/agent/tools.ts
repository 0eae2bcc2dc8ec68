import fs from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { untrustedBlock } from './prompt.ts';
import type { SearchReply, SearchRequest } from './search-worker.ts';
import { SecretVeil } from './secret-veil.ts';
import { PathRefused, resolveInTree, walkTree, type TreePath } from './tree-paths.ts';

/** A tool as both APIs describe it: a name, what it does, and a JSON schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** What a tool call returns to the model. An error is an answer too: the model reads it and tries again. */
export interface ToolOutcome {
  content: string;
  isError: boolean;
}

export const TOOL_LIMITS = {
  listEntries: 400,
  readLines: 400,
  readChars: 40_000,
  lineChars: 2_000,
  readFileBytes: 10 * 1024 * 1024,
  searchResults: 100,
  searchFiles: 20_000,
  searchFileBytes: 1024 * 1024,
  searchLineChars: 240,
  searchTimeoutMs: 10_000,
  resultChars: 60_000,
} as const;

export const AGENT_TOOLS: readonly ToolDefinition[] = [
  {
    name: 'list_files',
    description:
      `Lists the files of the repository, or of one folder of it, recursively in name order (at most ${TOOL_LIMITS.listEntries}; ` +
      'list a subfolder to see more). The .git folder is left out; symbolic links are listed, not followed.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Folder relative to the repository root; omit for the whole repository.' },
      },
      additionalProperties: false,
    },
  },
  {
    name: 'read_file',
    description:
      `Reads a text file, or a range of its lines (at most ${TOOL_LIMITS.readLines} lines per call). Each line is prefixed with ` +
      'its number and a tab; the prefix is not part of the file.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path relative to the repository root.' },
        start_line: { type: 'integer', minimum: 1, description: 'First line to read, from 1. Default 1.' },
        end_line: { type: 'integer', minimum: 1, description: 'Last line to read, inclusive.' },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  {
    name: 'search',
    description:
      'Searches the text files of the repository (or of a folder or file) line by line for a fixed string or a JavaScript ' +
      `regular expression, like ripgrep. Answers one "path:line: text" line per match, at most ${TOOL_LIMITS.searchResults}.`,
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'The text to look for, or a regular expression when regex is true.' },
        regex: { type: 'boolean', description: 'Treat pattern as a JavaScript regular expression. Default false.' },
        ignore_case: { type: 'boolean', description: 'Match case-insensitively. Default false.' },
        path: { type: 'string', description: 'Folder or file to search, relative to the repository root; omit for the whole repository.' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
  {
    name: 'edit_file',
    description:
      'Replaces old_text with new_text in a file. old_text must match the file exactly (whitespace and indentation included, ' +
      'without read_file\'s line-number prefixes) and occur exactly once; add surrounding lines to make it unique. ' +
      'To create a new file, give an empty old_text and the whole content as new_text.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path relative to the repository root.' },
        old_text: { type: 'string', description: 'The exact text to replace; empty only to create a file that does not exist.' },
        new_text: { type: 'string', description: 'The replacement text.' },
      },
      required: ['path', 'old_text', 'new_text'],
      additionalProperties: false,
    },
  },
  {
    name: 'rescan',
    description:
      'Runs the scanners that reported the findings again on the given files and says what they still find there. ' +
      'Use it after editing to check that the findings are gone.',
    parameters: {
      type: 'object',
      properties: {
        paths: {
          type: 'array',
          items: { type: 'string' },
          minItems: 1,
          description: 'Files to rescan, relative to the repository root: the files you changed.',
        },
      },
      required: ['paths'],
      additionalProperties: false,
    },
  },
];

export interface AgentToolsOptions {
  /** The work tree. */
  dir: string;
  rescan(files: string[]): Promise<string>;
  /** The random boundary that delimits untrusted blocks in this run. */
  boundary: string;
  /** Stops a running search. */
  signal?: AbortSignal;
  searchTimeoutMs?: number;
}

export interface AgentTools {
  /** Repository-relative POSIX paths the tools wrote, sorted. */
  readonly changedFiles: string[];
  /** Runs a tool; never throws: problems come back as an error outcome for the model. */
  call(name: string, input: unknown): Promise<ToolOutcome>;
}

/** A problem with a tool call that the model can fix by calling again differently. */
class ToolRefused extends Error {}

export async function createAgentTools(options: AgentToolsOptions): Promise<AgentTools> {
  const root = await fs.realpath(options.dir);
  const changed = new Set<string>();
  const veil = new SecretVeil();
  const { boundary } = options;

  const resolve = (value: unknown, what = 'path') => resolveInTree(root, value, what);

  async function listFiles(args: Args): Promise<string> {
    const folder = await resolve(args.optionalString('path') ?? '');
    if (!folder.exists) throw new ToolRefused(`"${folder.rel}" does not exist`);
    if (!(await fs.stat(folder.abs)).isDirectory()) throw new ToolRefused(`"${folder.rel}" is a file; use read_file to read it`);
    const names: string[] = [];
    let more = false;
    for await (const entry of walkTree(root, folder, TOOL_LIMITS.listEntries + 1)) {
      if (names.length === TOOL_LIMITS.listEntries) {
        more = true;
        break;
      }
      names.push(entry.kind === 'symlink' ? `${entry.rel} (symbolic link)` : entry.rel);
    }
    const where = folder.rel || '.';
    if (names.length === 0) return `No files under ${where}.`;
    const note = more
      ? `\nShowing the first ${TOOL_LIMITS.listEntries} files under ${where}; list a subfolder to see the rest.`
      : `\n${names.length} file${names.length === 1 ? '' : 's'} under ${where}.`;
    return untrustedBlock('listing', { path: where }, names.join('\n'), boundary) + note;
  }

  async function readFile(args: Args): Promise<string> {
    const file = await existingFile(args.string('path'));
    const text = veil.hide(await readText(file));
    const lines = splitLines(text);
    const start = args.optionalInteger('start_line') ?? 1;
    const requestedEnd = args.optionalInteger('end_line');
    if (requestedEnd !== undefined && requestedEnd < start) throw new ToolRefused('end_line must not be smaller than start_line');
    if (lines.length === 0) return untrustedBlock('file', { path: file.rel, total_lines: 0 }, '(empty file)', boundary);
    if (start > lines.length) throw new ToolRefused(`"${file.rel}" has ${lines.length} lines; start_line ${start} is past its end`);
    let end = Math.min(requestedEnd ?? start + TOOL_LIMITS.readLines - 1, lines.length, start + TOOL_LIMITS.readLines - 1);
    const width = String(end).length;
    const shown: string[] = [];
    let chars = 0;
    for (let n = start; n <= end; n++) {
      let line = lines[n - 1];
      if (line.length > TOOL_LIMITS.lineChars) line = `${line.slice(0, TOOL_LIMITS.lineChars)}… [${line.length - TOOL_LIMITS.lineChars} more characters on this line]`;
      chars += line.length + width + 2;
      if (chars > TOOL_LIMITS.readChars && shown.length > 0) {
        end = n - 1;
        break;
      }
      shown.push(`${String(n).padStart(width)}\t${line}`);
    }
    const block = untrustedBlock('file', { path: file.rel, lines: `${start}-${end}`, total_lines: lines.length }, shown.join('\n'), boundary);
    return end < lines.length ? `${block}\nLines ${end + 1}-${lines.length} not shown; call read_file with start_line ${end + 1} to continue.` : block;
  }

  async function searchFiles(args: Args): Promise<string> {
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
    const start = await resolve(args.optionalString('path') ?? '');
    if (!start.exists) throw new ToolRefused(`"${start.rel}" does not exist`);
    const request: SearchRequest = {
      root,
      start,
      startIsFile: !(await fs.stat(start.abs)).isDirectory(),
      pattern,
      regex,
      ignoreCase,
      maxResults: TOOL_LIMITS.searchResults,
      maxFiles: TOOL_LIMITS.searchFiles,
      maxFileBytes: TOOL_LIMITS.searchFileBytes,
      maxLineChars: TOOL_LIMITS.searchLineChars,
    };
    const timeoutMs = options.searchTimeoutMs ?? TOOL_LIMITS.searchTimeoutMs;
    const reply = await runSearch(request, timeoutMs, options.signal);
    if (reply === 'timeout') {
      throw new ToolRefused(`the search did not finish within ${Math.round(timeoutMs / 1000)} seconds; use a simpler pattern or a narrower path`);
    }
    const searched = `${reply.filesSearched} file${reply.filesSearched === 1 ? '' : 's'} searched${reply.filesSkipped ? `, ${reply.filesSkipped} binary or large files skipped` : ''}`;
    if (reply.lines.length === 0) return `No matches (${searched}).`;
    const block = untrustedBlock('search', { pattern, path: start.rel || '.' }, reply.lines.map((line) => veil.hide(line)).join('\n'), boundary);
    const more = reply.truncated ? `; more matches not shown, narrow the pattern or the path` : '';
    return `${block}\n${reply.lines.length} matching lines (${searched})${more}.`;
  }

  async function editFile(args: Args): Promise<string> {
    const target = await resolve(args.string('path'));
    const rawOld = args.string('old_text');
    const rawNew = args.string('new_text');
    const copied = veil.placeholdersIn(rawNew).filter((placeholder) => !veil.placeholdersIn(rawOld).includes(placeholder));
    if (copied.length) {
      throw new ToolRefused('new_text may keep a secret placeholder only where old_text has it; a secret must not be copied elsewhere. Nothing was changed.');
    }
    const oldText = veil.reveal(rawOld);
    const newText = veil.reveal(rawNew);
    if (target.rel === '') throw new ToolRefused('path must name a file');
    if (PIPELINE_FILES.test(target.rel)) {
      throw new ToolRefused(`"${target.rel}" configures CI or git hooks, which a fix never changes; leave it as it is`);
    }
    if (!target.exists) {
      if (oldText !== '') throw new ToolRefused(`"${target.rel}" does not exist; to create it, give an empty old_text`);
      await fs.mkdir(path.dirname(target.abs), { recursive: true });
      await fs.writeFile(target.abs, newText, { flag: 'wx' });
      changed.add(target.rel);
      return `Created ${target.rel} (${splitLines(newText).length} lines).`;
    }
    const stat = await fs.stat(target.abs);
    if (!stat.isFile()) throw new ToolRefused(`"${target.rel}" is not a file`);
    if (oldText === '') throw new ToolRefused(`"${target.rel}" already exists; give the exact text to replace as old_text`);
    const text = await readText(target);
    let from = oldText;
    let to = newText;
    let positions = occurrences(text, from);
    if (positions.length === 0 && text.includes('\r\n') && from.includes('\n') && !from.includes('\r\n')) {
      // read_file shows lines without their \r; match the file's CRLF line ends and keep them.
      from = oldText.replace(/\n/g, '\r\n');
      to = newText.replace(/\r?\n/g, '\r\n');
      positions = occurrences(text, from);
    }
    if (positions.length === 0) {
      throw new ToolRefused(
        `old_text was not found in "${target.rel}". It must match the file exactly, including whitespace and indentation, ` +
          'without the line-number prefixes read_file adds; read the lines again and copy them.',
      );
    }
    if (positions.length > 1) {
      const lineNumbers = positions.slice(0, 10).map((p) => lineOf(text, p));
      throw new ToolRefused(
        `old_text occurs ${positions.length} times in "${target.rel}" (starting at lines ${lineNumbers.join(', ')}${positions.length > 10 ? ', …' : ''}); ` +
          'include more surrounding lines so that it occurs exactly once. Nothing was changed.',
      );
    }
    if (from === to) throw new ToolRefused('old_text and new_text are the same; nothing to change');
    const at = positions[0];
    const updated = text.slice(0, at) + to + text.slice(at + from.length);
    await fs.writeFile(target.abs, updated);
    changed.add(target.rel);

    const firstLine = lineOf(updated, at);
    const lastLine = Math.max(firstLine, lineOf(updated, at + Math.max(to.length - 1, 0)));
    const lines = splitLines(veil.hide(updated));
    const from1 = Math.max(1, firstLine - 2);
    const to1 = Math.min(lines.length, lastLine + 2, from1 + 60);
    const width = String(to1).length;
    const snippet = lines.slice(from1 - 1, to1).map((line, i) => `${String(from1 + i).padStart(width)}\t${line}`).join('\n');
    return (
      `Edited ${target.rel}: replaced 1 occurrence; the new text is at lines ${firstLine}-${lastLine}.` +
      (snippet ? `\n${untrustedBlock('file', { path: target.rel, lines: `${from1}-${to1}`, total_lines: lines.length }, snippet, boundary)}` : '')
    );
  }

  async function rescan(args: Args): Promise<string> {
    const raw = args.stringArray('paths');
    if (raw.length === 0) throw new ToolRefused('paths must list at least one file');
    const files: string[] = [];
    for (const item of raw) {
      const file = await existingFile(item);
      if (!files.includes(file.rel)) files.push(file.rel);
    }
    let report: string;
    try {
      report = await options.rescan(files);
    } catch (err) {
      throw new ToolRefused(`the rescan failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    return untrustedBlock('rescan', { files: files.join(', ') }, report.trim() || '(no output)', boundary);
  }

  async function existingFile(value: unknown): Promise<TreePath> {
    const file = await resolve(value);
    if (file.rel === '') throw new ToolRefused('path must name a file');
    if (!file.exists) throw new ToolRefused(`"${file.rel}" does not exist`);
    const stat = await fs.stat(file.abs);
    if (stat.isDirectory()) throw new ToolRefused(`"${file.rel}" is a folder; use list_files to see what it holds`);
    if (!stat.isFile()) throw new ToolRefused(`"${file.rel}" is not a regular file`);
    return file;
  }

  async function readText(file: TreePath): Promise<string> {
    const stat = await fs.stat(file.abs);
    if (stat.size > TOOL_LIMITS.readFileBytes) throw new ToolRefused(`"${file.rel}" is too large (${stat.size} bytes) to read or edit`);
    const bytes = await fs.readFile(file.abs);
    if (bytes.subarray(0, 8192).includes(0)) throw new ToolRefused(`"${file.rel}" is a binary file`);
    try {
      // ignoreBOM keeps a byte-order mark in the text, so that an edit writes it back.
      return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw new ToolRefused(`"${file.rel}" is not UTF-8 text`);
    }
  }

  const handlers: Record<string, (args: Args) => Promise<string>> = {
    list_files: listFiles,
    read_file: readFile,
    search: searchFiles,
    edit_file: editFile,
    rescan,
  };

  return {
    get changedFiles() {
      return [...changed].sort();
    },
    async call(name, input) {
      const handler = Object.hasOwn(handlers, name) ? handlers[name] : undefined;
      if (!handler) return { content: `Error: there is no tool named "${name}"; the tools are ${Object.keys(handlers).join(', ')}.`, isError: true };
      try {
        const content = await handler(new Args(name, input));
        return { content: bound(content), isError: false };
      } catch (err) {
        const message = err instanceof ToolRefused || err instanceof PathRefused
          ? err.message
          : `${name} failed: ${(err instanceof Error ? err.message : String(err)).split(root).join('.')}`;
        return { content: `Error: ${message}`, isError: true };
      }
    },
  };
}

/** Typed access to a tool call's arguments, refusing wrong types with a message the model can act on. */
class Args {
  readonly #tool: string;
  readonly #values: Record<string, unknown>;

  constructor(tool: string, input: unknown) {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new ToolRefused(`the arguments of ${tool} must be a JSON object`);
    }
    this.#tool = tool;
    this.#values = input as Record<string, unknown>;
  }

  string(name: string): string {
    const value = this.#values[name];
    if (typeof value !== 'string') throw new ToolRefused(`${this.#tool} needs "${name}" as a string`);
    return value;
  }

  optionalString(name: string): string | undefined {
    return this.#values[name] == null ? undefined : this.string(name);
  }

  optionalInteger(name: string): number | undefined {
    const value = this.#values[name];
    if (value == null) return undefined;
    const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isInteger(number) || number < 1) {
      throw new ToolRefused(`${this.#tool} needs "${name}" as a whole number from 1`);
    }
    return number;
  }

  optionalBoolean(name: string): boolean | undefined {
    const value = this.#values[name];
    if (value == null) return undefined;
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    throw new ToolRefused(`${this.#tool} needs "${name}" as true or false`);
  }

  stringArray(name: string): string[] {
    const value = this.#values[name];
    if (typeof value === 'string') return [value];
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
      throw new ToolRefused(`${this.#tool} needs "${name}" as an array of strings`);
    }
    return value;
  }
}

/**
 * CI pipelines and hooks run with the repository's secrets when the fix branch is pushed, which makes
 * them what instructions planted in repository content would aim for; the agent may read them, not edit.
 */
const PIPELINE_FILES =
  /^(?:\.github\/|\.gitlab\/|\.gitlab-ci\.ya?ml$|\.circleci\/|\.buildkite\/|\.azure-pipelines\/|azure-pipelines\.ya?ml$|\.travis\.ya?ml$|bitbucket-pipelines\.ya?ml$|Jenkinsfile|\.husky\/|\.githooks\/|\.pre-commit-config\.ya?ml$)/i;

/** Lines of a text as read_file numbers them: a final newline does not start another line. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** Start offsets of every occurrence, overlapping ones included. */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) found.push(at);
  return found;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function bound(content: string): string {
  if (content.length <= TOOL_LIMITS.resultChars) return content;
  return `${content.slice(0, TOOL_LIMITS.resultChars)}\n[output cut at ${TOOL_LIMITS.resultChars} characters]`;
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

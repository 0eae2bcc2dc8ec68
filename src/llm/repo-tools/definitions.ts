import type { ToolDefinition } from '../provider.ts';
import { TOOL_LIMITS } from './context.ts';

/** The tools that only read the checkout, as the model is offered them. */
export const READ_ONLY_TOOLS: readonly ToolDefinition[] = [
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
];

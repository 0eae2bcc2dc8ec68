import { TOOL_LIMITS } from './context.ts';

import type { ToolDefinition } from '../../../llm/provider.ts';

export type { ToolDefinition };

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

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CODE_HOST_NAMES } from '../../src/code-hosts/index.ts';
import { VOCABULARY_SCHEMAS } from '../../src/http/vocabulary.ts';

// The console reads the server's lists from the OpenAPI document (console/src/api/vocabulary.ts); a list
// literal of its own, outside console/src/api/, would stop following the server. An array literal holding
// three or more values of one published list counts as such a copy.

const CONSOLE_SRC = path.resolve(import.meta.dirname, '../../console/src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return full === path.join(CONSOLE_SRC, 'api') ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

const lists: Record<string, readonly string[]> = {
  ...Object.fromEntries(Object.entries(VOCABULARY_SCHEMAS).map(([name, schema]) => [name, schema.enum as string[]])),
  CodeHost: CODE_HOST_NAMES,
};

test('the console keeps no copy of a list the server publishes', () => {
  const copies: string[] = [];
  for (const file of sourceFiles(CONSOLE_SRC)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const literal of text.matchAll(/\[([^[\]]*)\]/g)) {
      const strings = [...literal[1]!.matchAll(/'([^']*)'|"([^"]*)"/g)].map((m) => m[1] ?? m[2]);
      for (const [name, values] of Object.entries(lists)) {
        if (strings.filter((s) => values.includes(s!)).length >= 3) copies.push(`${path.relative(CONSOLE_SRC, file)}: ${name} ${literal[0]}`);
      }
    }
  }
  assert.deepEqual(copies, []);
});

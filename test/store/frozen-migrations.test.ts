import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { moduleImports } from '../../scripts/module-imports.ts';

// A migration must do the same thing on every database it ever runs on, so it may not read the live
// code (machines, registries, lists) that later changes: it holds literal copies of what it needs.

const MIGRATIONS = path.resolve(import.meta.dirname, '../../src/store/migrations');

const specifiers = (name: string, text: string) => moduleImports(name, text).map((i) => i.specifier);

test('migrations import nothing but kysely, node builtins and each other', () => {
  const offenders: string[] = [];
  for (const name of fs.readdirSync(MIGRATIONS).filter((n) => /\.[cm]?[jt]s$/.test(n))) {
    for (const spec of specifiers(name, fs.readFileSync(path.join(MIGRATIONS, name), 'utf8'))) {
      if (spec === 'kysely' || spec.startsWith('node:')) continue;
      if (spec.startsWith('.') && path.dirname(path.resolve(MIGRATIONS, spec)) === MIGRATIONS) continue;
      offenders.push(`${name} imports ${spec}`);
    }
  }
  assert.deepEqual(offenders, []);
});

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims } from '../extractor.ts';
import { assertRejects, fixture, treeContext } from '../testing.ts';
import { denoLockExtractor } from './deno-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

async function read(version: string) {
  const components = await denoLockExtractor.extract({ path: 'deno.lock', text: fixture(TESTDATA, `deno.${version}.lock`) }, treeContext());
  assert.ok(components.every((c) => c.sourceFile === 'deno.lock'));
  return components.map((c) => [c.ecosystem, c.name, c.version, c.direct, c.purl]);
}

describe('deno.lock', () => {
  test('claims deno.lock only', () => {
    assert.ok(claims(denoLockExtractor, 'deno.lock'));
    assert.ok(!claims(denoLockExtractor, 'deno.json'));
  });

  test('version 3: npm packages (peer suffixes dropped) and JSR packages, direct from the workspace', async () => {
    assert.deepEqual(await read('v3'), [
      ['npm', 'chalk', '5.3.0', true, 'pkg:npm/chalk@5.3.0'],
      ['npm', 'preact-render-to-string', '6.4.0', true, 'pkg:npm/preact-render-to-string@6.4.0'],
      ['npm', 'preact', '10.19.6', true, 'pkg:npm/preact@10.19.6'],
      ['npm', 'pretty-format', '3.8.0', false, 'pkg:npm/pretty-format@3.8.0'],
      ['JSR', '@std/assert', '0.221.0', false, 'pkg:jsr/%40std/assert@0.221.0'],
      ['JSR', '@std/path', '0.221.0', true, 'pkg:jsr/%40std/path@0.221.0'],
    ]);
  });

  test('version 4: specifiers resolve to bare versions', async () => {
    assert.deepEqual(await read('v4'), [
      ['npm', '@types/node', '22.5.4', false, 'pkg:npm/%40types/node@22.5.4'],
      ['npm', 'undici-types', '6.19.8', false, 'pkg:npm/undici-types@6.19.8'],
      ['npm', 'zod', '3.23.8', true, 'pkg:npm/zod@3.23.8'],
      ['JSR', '@oak/oak', '17.1.3', true, 'pkg:jsr/%40oak/oak@17.1.3'],
      ['JSR', '@std/assert', '1.0.8', true, 'pkg:jsr/%40std/assert@1.0.8'],
      ['JSR', '@std/internal', '1.0.5', false, 'pkg:jsr/%40std/internal@1.0.5'],
    ]);
  });

  test('without a workspace section nothing is known to be direct', async () => {
    const text = JSON.stringify({ version: '4', npm: { 'zod@3.23.8': { integrity: 'sha512-x' } } });
    const components = await denoLockExtractor.extract({ path: 'deno.lock', text }, treeContext());
    assert.deepEqual(components.map((c) => c.direct), [null]);
  });

  test('malformed locks', async () => {
    await assertRejects(denoLockExtractor, 'deno.lock', '{"version": "2"}', /unsupported deno.lock version "2"/);
    await assertRejects(denoLockExtractor, 'deno.lock', '{"version": "4", "npm": []}', /`npm` is not an object/);
    await assertRejects(denoLockExtractor, 'deno.lock', '{"version": "4",', /not valid JSON/);
  });
});

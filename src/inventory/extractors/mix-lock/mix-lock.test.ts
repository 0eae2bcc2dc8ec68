import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims } from '../extractor.ts';
import { assertRejects, extract, fixture, summarize } from '../testing.ts';
import { mixLockExtractor } from './mix-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('mix.lock', () => {
  test('claims mix.lock only', () => {
    assert.ok(claims(mixLockExtractor, 'mix.lock'));
    assert.ok(!claims(mixLockExtractor, 'mix.exs'));
  });

  test('Hex packages by their package atom; git and path dependencies skipped', async () => {
    const components = await extract(mixLockExtractor, 'apps/web/mix.lock', fixture(TESTDATA, 'mix.lock'));
    assert.deepEqual(
      summarize(components).map((s) => `${s.name}@${s.version}`),
      ['castore@1.0.5', 'cowboy@2.10.0', 'cowlib@2.12.1', 'ecto@3.11.1', 'phoenix@1.7.10', 'plug@1.15.3', 'telemetry@1.2.1'],
    );
    assert.equal(components.find((c) => c.name === 'phoenix')?.purl, 'pkg:hex/phoenix@1.7.10');
    assert.ok(components.every((c) => c.direct === null));
  });

  test('an aliased key is listed under the Hex package name', async () => {
    const text = '%{\n  "json": {:hex, :jason, "1.4.1", "af1504e35f629ddcdd6addb3513c3853991f694921b1b9368b0bd32beb9f1b63", [:mix], [], "hexpm", "fbb01ecdfd565b56261302f7e1fcc27c4fb8f32d56eab74db621fc154604a7a1"},\n}\n';
    assert.deepEqual(summarize(await extract(mixLockExtractor, 'mix.lock', text)), [{ name: 'jason', version: '1.4.1', direct: null }]);
  });

  test('malformed locks', async () => {
    await assertRejects(mixLockExtractor, 'mix.lock', '{"a": 1}', /not an Elixir map/);
    await assertRejects(mixLockExtractor, 'mix.lock', '%{\n  garbage here\n}\n', /line 2: not a mix.lock entry/);
  });
});

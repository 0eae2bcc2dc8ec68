import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fixture, summarize, extract, purlOf, assertRejects } from '../testing.ts';
import { gemfileLockExtractor } from './gemfile-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('Gemfile.lock', () => {
  test('gems from GEM, GIT and PATH sources, platform variants merged, direct from DEPENDENCIES', async () => {
    const components = await extract(gemfileLockExtractor, 'Gemfile.lock', fixture(TESTDATA, 'Gemfile.lock'));
    assert.deepEqual(summarize(components), [
      { name: 'billing', version: '0.1.0', direct: true },
      { name: 'crass', version: '1.0.6', direct: false },
      { name: 'loofah', version: '2.21.4', direct: false },
      { name: 'nio4r', version: '2.5.9', direct: false },
      { name: 'nokogiri', version: '1.15.4', direct: true },
      { name: 'pg', version: '1.5.4', direct: true },
      { name: 'puma', version: '6.4.0', direct: true },
      { name: 'racc', version: '1.7.1', direct: false },
      { name: 'rack', version: '2.2.8', direct: false },
      { name: 'rails-html-sanitizer', version: '1.6.0', direct: true },
      { name: 'rspec-core', version: '3.12.2', direct: true },
      { name: 'rspec-support', version: '3.12.1', direct: false },
    ]);
    assert.equal(purlOf(components, 'nokogiri', '1.15.4'), 'pkg:gem/nokogiri@1.15.4');
  });

  test('CRLF line endings read the same', async () => {
    const text = fixture(TESTDATA, 'Gemfile.lock');
    const lf = await extract(gemfileLockExtractor, 'Gemfile.lock', text);
    const crlf = await extract(gemfileLockExtractor, 'Gemfile.lock', text.replaceAll('\n', '\r\n'));
    assert.deepEqual(summarize(crlf), summarize(lf));
  });

  test('malformed files are rejected', async () => {
    await assertRejects(gemfileLockExtractor, 'Gemfile.lock', '{"GEM": []}\n', /none of the sections/);
    await assertRejects(gemfileLockExtractor, 'Gemfile.lock', 'GEM\n  remote: https://rubygems.org/\n  specs:\n    rack\n', /line 4/);
  });

  test('the dependency graph from specs, and SHA-256 checksums from CHECKSUMS (Bundler 2.5+) for gems without a platform', async () => {
    const sha = (c: string) => c.repeat(64);
    const text = `${fixture(TESTDATA, 'Gemfile.lock').trimEnd()}\n\nCHECKSUMS\n  crass (1.0.6) sha256=${sha('a')}\n  nokogiri (1.15.4-x86_64-linux) sha256=${sha('b')}\n  rack (2.2.8)\n`;
    const components = await extract(gemfileLockExtractor, 'Gemfile.lock', text);
    const byName = new Map(components.map((c) => [c.name, c]));
    assert.deepEqual(byName.get('loofah')?.dependsOn, ['pkg:gem/crass@1.0.6', 'pkg:gem/nokogiri@1.15.4']);
    assert.deepEqual(byName.get('nokogiri')?.dependsOn, ['pkg:gem/racc@1.7.1']);
    assert.equal(byName.get('crass')?.dependsOn, undefined);
    assert.deepEqual(byName.get('crass')?.hashes, [{ algorithm: 'SHA-256', content: sha('a') }]);
    assert.equal(byName.get('nokogiri')?.hashes, undefined);
    assert.equal(byName.get('rack')?.hashes, undefined);
  });
});

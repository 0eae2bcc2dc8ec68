import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims } from '../extractor.ts';
import { assertRejects, extract, fixture, summarize } from '../testing.ts';
import { nugetPackagesConfigExtractor } from './nuget-packages-config.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('packages.config', () => {
  test('claims packages.config only', () => {
    assert.ok(claims(nugetPackagesConfigExtractor, 'packages.config'));
    assert.ok(!claims(nugetPackagesConfigExtractor, 'packages.lock.json'));
  });

  test('every package, development dependencies marked', async () => {
    const components = await extract(nugetPackagesConfigExtractor, 'src/Web/packages.config', fixture(TESTDATA, 'packages.config'));
    assert.deepEqual(summarize(components), [
      { name: 'Antlr', version: '3.5.0.2', direct: null, development: false },
      { name: 'Microsoft.AspNet.Mvc', version: '5.2.9', direct: null, development: false },
      { name: 'Microsoft.AspNet.Razor', version: '3.2.9', direct: null, development: false },
      { name: 'Microsoft.CodeDom.Providers.DotNetCompilerPlatform', version: '2.0.1', direct: null, development: true },
      { name: 'Newtonsoft.Json', version: '13.0.3', direct: null, development: false },
      { name: 'NUnit', version: '3.14.0', direct: null, development: false },
    ]);
    assert.equal(components.find((c) => c.name === 'Newtonsoft.Json')?.purl, 'pkg:nuget/Newtonsoft.Json@13.0.3');
  });

  test('an empty list, and malformed files', async () => {
    assert.deepEqual(await extract(nugetPackagesConfigExtractor, 'packages.config', '<?xml version="1.0"?>\n<packages />\n'), []);
    await assertRejects(nugetPackagesConfigExtractor, 'packages.config', '<packages><package id="x"', /not well-formed XML/);
    await assertRejects(nugetPackagesConfigExtractor, 'packages.config', '<configuration />', /no <packages> element/);
    await assertRejects(nugetPackagesConfigExtractor, 'packages.config', '<packages><package id="x" /></packages>', /package 1 has no id or version/);
  });
});

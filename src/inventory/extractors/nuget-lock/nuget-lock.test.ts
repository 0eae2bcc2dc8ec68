import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fixture, summarize, extract, purlOf, assertRejects } from '../testing.ts';
import { nugetLockExtractor } from './nuget-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('packages.lock.json', () => {
  test('resolved packages of every framework, merged; project references left out', async () => {
    const components = await extract(nugetLockExtractor, 'src/Api/packages.lock.json', fixture(TESTDATA, 'packages.lock.json'));
    assert.deepEqual(summarize(components), [
      { name: 'Microsoft.Extensions.Logging.Abstractions', version: '8.0.0', direct: true },
      { name: 'Newtonsoft.Json', version: '13.0.1', direct: true },
      { name: 'Serilog', version: '2.12.0', direct: false },
      { name: 'Serilog', version: '3.1.1', direct: false },
      { name: 'Serilog.AspNetCore', version: '7.0.0', direct: true },
      { name: 'Serilog.AspNetCore', version: '8.0.0', direct: true },
      { name: 'System.Text.Encodings.Web', version: '8.0.0', direct: false },
    ]);
    assert.equal(purlOf(components, 'Newtonsoft.Json', '13.0.1'), 'pkg:nuget/Newtonsoft.Json@13.0.1');
  });

  test('contentHash is not given as a hash: for a signed package it is not the digest of the .nupkg', async () => {
    const text = fixture(TESTDATA, 'packages.lock.json');
    assert.match(text, /"contentHash"/);
    const components = await extract(nugetLockExtractor, 'packages.lock.json', text);
    assert.ok(components.every((c) => c.hashes === undefined));
  });

  test('malformed files are rejected', async () => {
    await assertRejects(nugetLockExtractor, 'packages.lock.json', '{"version": 1, "dependencies": ', /not valid JSON/);
    await assertRejects(nugetLockExtractor, 'packages.lock.json', '{"version": 1}', /no "dependencies" object/);
    await assertRejects(
      nugetLockExtractor,
      'packages.lock.json',
      '{"version": 1, "dependencies": {"net8.0": {"Serilog": {"type": "Direct"}}}}',
      /net8\.0: Serilog has no resolved version/,
    );
  });
});

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims } from '../extractor.ts';
import { assertRejects, extract, fixture, summarize } from '../testing.ts';
import { gopkgLockExtractor } from './gopkg-lock.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('Gopkg.lock', () => {
  test('claims Gopkg.lock only', () => {
    assert.ok(claims(gopkgLockExtractor, 'Gopkg.lock'));
    assert.ok(!claims(gopkgLockExtractor, 'Gopkg.toml'));
  });

  test('projects at their tag or revision, direct from the input imports', async () => {
    const components = await extract(gopkgLockExtractor, 'Gopkg.lock', fixture(TESTDATA, 'Gopkg.lock'));
    assert.deepEqual(summarize(components), [
      { name: 'github.com/davecgh/go-spew', version: 'v1.1.1', direct: false },
      { name: 'github.com/gorilla/mux', version: 'v1.8.0', direct: true },
      { name: 'github.com/pkg/errors', version: 'v0.8.1', direct: true },
      { name: 'github.com/pmezard/go-difflib', version: 'v1.0.0', direct: false },
      { name: 'github.com/stretchr/testify', version: 'v1.3.0', direct: true },
      { name: 'golang.org/x/net', version: 'a4d6f7feada510cc50e69a37b484cb0fdc6b7876', direct: true },
    ]);
    assert.equal(components.find((c) => c.name === 'github.com/pkg/errors')?.purl, 'pkg:golang/github.com/pkg/errors@v0.8.1');
  });

  test('malformed locks', async () => {
    await assertRejects(gopkgLockExtractor, 'Gopkg.lock', '[[projects]\n', /not valid TOML/);
    await assertRejects(gopkgLockExtractor, 'Gopkg.lock', '[[projects]]\nname = "x"\n', /project 1 has no name, version or revision/);
  });
});

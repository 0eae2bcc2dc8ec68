import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fixture, summarize, extract, purlOf, assertRejects } from '../testing.ts';
import { goModExtractor } from './go-mod.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('go.mod', () => {
  test('requirements with indirect marks, replacements applied and local replacements dropped', async () => {
    const components = await extract(goModExtractor, 'svc/go.mod', fixture(TESTDATA, 'go.mod'));
    assert.deepEqual(summarize(components), [
      { name: 'github.com/acme-forks/legacy', version: 'v0.2.1-patched', direct: true },
      { name: 'github.com/bytedance/sonic', version: 'v1.9.1', direct: false },
      { name: 'github.com/docker/docker', version: 'v24.0.6+incompatible', direct: true },
      { name: 'github.com/gabriel-vasile/mimetype', version: 'v1.4.2', direct: false },
      { name: 'github.com/gin-gonic/gin', version: 'v1.9.0', direct: true },
      { name: 'github.com/golang-jwt/jwt/v5', version: 'v5.0.0', direct: true },
      { name: 'github.com/google/uuid', version: 'v1.3.1', direct: true },
      { name: 'github.com/lib/pq', version: 'v1.10.7', direct: true },
      { name: 'github.com/pkg/errors', version: 'v0.9.1', direct: false },
      { name: 'github.com/spf13/cobra', version: 'v1.7.0', direct: true },
      { name: 'golang.org/x/crypto', version: 'v0.14.0', direct: true },
      { name: 'golang.org/x/net', version: 'v0.0.0-20230101000000-abcdef123456', direct: false },
    ]);
    assert.equal(purlOf(components, 'github.com/gin-gonic/gin', 'v1.9.0'), 'pkg:golang/github.com/gin-gonic/gin@v1.9.0');
  });

  test('a module without requirements has no components', async () => {
    const text = 'module example.com/tiny\n\ngo 1.22.0\n\ntoolchain go1.22.4\n\nrequire ()\n';
    assert.deepEqual(await extract(goModExtractor, 'go.mod', text), []);
  });

  test('malformed files are rejected', async () => {
    await assertRejects(goModExtractor, 'go.mod', 'module example.com/x\n\nrequire (\n\tgithub.com/a/b v1.0.0\n', /unterminated require block/);
    await assertRejects(goModExtractor, 'go.mod', 'module example.com/x\nrequire github.com/a/b\n', /line 2: usage: require/);
    await assertRejects(goModExtractor, 'go.mod', 'module example.com/x\nreplace github.com/a/b => github.com/c/d\n', /line 2: .*needs a version/);
    await assertRejects(goModExtractor, 'go.mod', '{"module": "example.com/x"}\n', /line 1: unknown directive/);
    await assertRejects(goModExtractor, 'go.mod', 'go 1.21\nrequire github.com/a/b v1.0.0\n', /no module directive/);
  });
});

// Everything that knows about code hosts reads src/code-hosts/index.ts: the checks below add no host,
// they hold each consumer to the registry, so a host added there (its descriptor and one line) is
// parsed, configured, offered and opened on without another edit.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CODE_HOST_NAMES, CODE_HOSTS, codeHostCalled, codeHostClients, codeHostLabel, codeHostSettings } from '../../src/code-hosts/index.ts';
import { loadSettings } from '../../src/config.ts';
import { defaultUrls, parseSourceSpec } from '../../src/core/source-repos.ts';
import { CheckoutCache } from '../../src/scm/checkout-cache.ts';
import { createHarness, type Harness } from '../support/api.ts';
import { startGitHttpsServer } from '../support/git-https-server.ts';

describe('the code-host registry', () => {
  test('names, aliases and settings are each one host\'s own', () => {
    const words = CODE_HOSTS.flatMap((host) => [host.name, ...host.aliases]);
    assert.equal(new Set(words).size, words.length, 'a name or alias used twice');
    const envs = CODE_HOSTS.map((host) => host.api.env);
    assert.equal(new Set(envs).size, envs.length, 'a setting read by two hosts');
    for (const host of CODE_HOSTS) {
      assert.ok(host.examples.length, `${host.name} has no examples`);
      assert.equal(codeHostLabel(host.name), host.label);
      for (const word of [host.name, ...host.aliases]) assert.equal(codeHostCalled(word)?.name, host.name);
    }
  });

  test("source parsing recognizes each host's examples, by name and by alias, and refuses too short names", () => {
    for (const host of CODE_HOSTS) {
      for (const example of host.examples) {
        const spec = parseSourceSpec(example.spec);
        assert.equal(spec.provider, host.name, example.spec);
        assert.equal(spec.fullName, example.fullName, example.spec);
        assert.equal(defaultUrls(spec.provider, spec.fullName).cloneUrl, example.cloneUrl, example.spec);
        for (const alias of host.aliases) assert.equal(parseSourceSpec(`${alias}:${example.fullName}`).provider, host.name);
      }
      const tooShort = Array.from({ length: host.repository.segments - 1 }, (_, i) => `part${i}`).join('/');
      assert.throws(() => parseSourceSpec(`${host.name}:${tooShort}`), new RegExp(`${host.name} repositories are named ${host.repository.form}`));
    }
    assert.throws(() => parseSourceSpec('nowhere:acme/api'), new RegExp(`provider one of ${CODE_HOST_NAMES.join(', ')}$`));
  });

  test("the configuration reads each host's API root from its setting, and a client exists for each host", () => {
    const defaults = loadSettings({}).codeHosts;
    const set = loadSettings(Object.fromEntries(CODE_HOSTS.map((host) => [host.api.env, `https://${host.name}.example.test/api/`]))).codeHosts;
    for (const host of CODE_HOSTS) {
      assert.equal(defaults[host.name], host.api.default);
      assert.equal(set[host.name], `https://${host.name}.example.test/api`);
    }
    assert.deepEqual(Object.keys(codeHostClients(codeHostSettings({}))), [...CODE_HOST_NAMES]);
  });

  test("git authenticates to each host with the host's token user", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-hosts-'));
    const token = `tok_${'H0stT0k3n'.repeat(3)}`;
    // Every request is refused: only the credentials git sends matter here.
    const server = await startGitHttpsServer(root, 'nobody');
    const previousCa = process.env.GIT_SSL_CAINFO;
    process.env.GIT_SSL_CAINFO = server.caFile;
    try {
      const cache = new CheckoutCache({ root: path.join(root, 'cache'), allowLocal: false, allowPrivateHosts: true, timeoutMs: 30_000 });
      for (const host of CODE_HOSTS) {
        const before = server.authorizations.length;
        await cache.branchExists({ id: `source-${host.name}`, provider: host.name, cloneUrl: `${server.url}/repo.git`, token }, 'main').catch(() => undefined);
        const sent = server.authorizations.slice(before);
        assert.ok(sent.length, host.name);
        assert.ok(sent.every((header) => header === `Basic ${Buffer.from(`${host.gitTokenUser}:${token}`).toString('base64')}`), `${host.name}: ${sent.join(', ')}`);
      }
    } finally {
      if (previousCa === undefined) delete process.env.GIT_SSL_CAINFO;
      else process.env.GIT_SSL_CAINFO = previousCa;
      await server.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  describe('the API publishes the registry', () => {
    let h: Harness;
    let doc: any;
    before(async () => {
      h = await createHarness();
      doc = (await h.call('GET', '/openapi.json', { key: null })).json();
    });
    after(() => h.close());

    test('the CodeHost schema the console reads lists every host, in order, titled with its label', () => {
      const options = doc.components.schemas.CodeHost.anyOf as { enum: string[]; title: string }[];
      assert.deepEqual(
        options.map((option) => [option.enum[0], option.title]),
        CODE_HOSTS.map((host) => [host.name, host.label]),
      );
    });

    test("the fix's source_repo_provider enum is the registry's names", () => {
      const body = doc.paths['/api/v1/repositories/{repository_id}/fixes'].post.requestBody.content['application/json'].schema;
      assert.deepEqual(body.properties.source_repo_provider.enum, [...CODE_HOST_NAMES]);
    });

    test('repository registration in the console accepts exactly the registry\'s hosts', async () => {
      const body = doc.paths['/console/api/organizations/{org_id}/repositories'].post.requestBody.content['application/json'].schema;
      assert.deepEqual(body.properties.provider.anyOf.map((option: { enum: string[] }) => option.enum[0]), [...CODE_HOST_NAMES]);
    });
  });

  test("the console's own sources name no code host: its list comes from the server", () => {
    const root = path.resolve(import.meta.dirname, '../../console/src');
    const generated = new Set(['api/schema.d.ts', 'api/openapi.json', 'api/schemas.json']);
    const files = fs
      .readdirSync(root, { recursive: true, encoding: 'utf8' })
      .map((file) => file.split(path.sep).join('/'))
      .filter((file) => /\.(ts|tsx)$/.test(file) && !generated.has(file));
    const offenders = files.flatMap((file) => {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      return CODE_HOSTS.filter((host) => text.includes(`'${host.label}'`) || text.includes(`'${host.name}' |`)).map((host) => `${file}: ${host.name}`);
    });
    assert.deepEqual(offenders, []);
  });
});

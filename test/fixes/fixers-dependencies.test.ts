// The dependency fixer on lockfiles and manifests in a temporary work tree: the exact files it writes
// for npm, pip requirements, Poetry and uv, and the notes for what it leaves alone. Release metadata
// comes from a loopback stand-in registry (npm regenerates its locks against it too).
import pep440 from '@renovatebot/pep440';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createDependencyFixer } from '../../src/fixing/fixers/dependencies/dependency-fixer.ts';
import { fixerFor } from '../../src/fixing/fixers/index.ts';
import { createPackageRegistry } from '../../src/fixing/fixers/dependencies/package-registry.ts';
import type { Fixer, FixerOutcome, FixFinding, FixWorkspace } from '../../src/fixing/types.ts';
import { REGISTRY_CATALOG } from '../support/registry-catalog.ts';
import { startRegistryStandIn, type RegistryStandIn } from '../support/package-registry-standin.ts';
import { read, workTree } from '../support/fix-workspace.ts';

let registry: RegistryStandIn;
let dependencyFixer: Fixer;
before(async () => {
  registry = await startRegistryStandIn(REGISTRY_CATALOG);
  dependencyFixer = createDependencyFixer({ registry: createPackageRegistry({ pypiUrl: registry.url, npmUrl: registry.url }) });
});
after(async () => {
  await registry.close();
});


function finding(file: string, name: string, ecosystem: string, installed: string, fixed: string | null): FixFinding {
  return {
    id: `f-${name}`,
    scanType: 'sbom_scan',
    checkId: 'GHSA-xxxx-yyyy-zzzz',
    severity: 'high',
    title: 'Prototype pollution',
    message: `${name} ${installed} is affected.`,
    filePath: file,
    startLine: 1,
    endLine: 1,
    cwe: [],
    metadata: { package: name, ecosystem, installed_version: installed, fixed_version: fixed, purl: `pkg:x/${name}@${installed}`, direct: true, aliases: [] },
  };
}

async function apply(files: Record<string, string>, target: FixFinding): Promise<{ outcome: FixerOutcome; workspace: FixWorkspace }> {
  const workspace = workTree(files);
  return { outcome: await dependencyFixer.apply(target, workspace), workspace };
}

/** Applies the fix and checks it left every file as it was. */
async function refused(files: Record<string, string>, target: FixFinding): Promise<string> {
  const { outcome, workspace } = await apply(files, target);
  assert.deepEqual({ fixed: outcome.fixed, changedFiles: outcome.changedFiles }, { fixed: false, changedFiles: [] }, outcome.note);
  for (const [file, text] of Object.entries(files)) assert.equal(read(workspace, file), text, `${file} is unchanged`);
  return outcome.note;
}

const json = (value: unknown, indent = 2) => `${JSON.stringify(value, null, indent)}\n`;

describe('dependency fixer: npm', () => {
  const packageJson = `{
  "name": "shop",
  "version": "1.0.0",
  "dependencies": {
    "express": "^4.18.0",
    "lodash": "^4.17.20"
  },
  "devDependencies": {
    "jest": "~29.0.0"
  }
}
`;
  const lock = `{
  "name": "shop",
  "version": "1.0.0",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": {
      "name": "shop",
      "version": "1.0.0",
      "dependencies": {
        "express": "^4.18.0",
        "lodash": "^4.17.20"
      },
      "devDependencies": {
        "jest": "~29.0.0"
      }
    },
    "node_modules/express": {
      "version": "4.18.2",
      "resolved": "https://registry.npmjs.org/express/-/express-4.18.2.tgz",
      "integrity": "sha512-express",
      "dependencies": {
        "lodash": "^4.17.15"
      }
    },
    "node_modules/lodash": {
      "version": "4.17.20",
      "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.20.tgz",
      "integrity": "sha512-old"
    }
  }
}
`;

  test('a direct dependency: npm writes the lock again with the fixed version, the ranges in package.json and the lock follow', async () => {
    const { outcome, workspace } = await apply({ 'package.json': packageJson, 'package-lock.json': lock }, finding('package-lock.json', 'lodash', 'npm', '4.17.20', '4.17.21'));
    const written = JSON.parse(read(workspace, 'package-lock.json'));
    // The smallest fixing version, not the newest the range admits (4.17.22), with what the registry says of it.
    assert.deepEqual(written.packages['node_modules/lodash'], {
      version: '4.17.21',
      resolved: `${registry.url}/lodash/-/lodash-4.17.21.tgz`,
      integrity: `sha512-${Buffer.from('lodash@4.17.21').toString('base64')}`,
    });
    assert.deepEqual(written.packages[''].dependencies, { express: '^4.18.0', lodash: '^4.17.21' });
    assert.equal(written.packages['node_modules/express'].version, '4.18.2');
    assert.equal(read(workspace, 'package.json'), packageJson.replace('"lodash": "^4.17.20"', '"lodash": "^4.17.21"'));
    assert.deepEqual(outcome, {
      fixed: true,
      changedFiles: ['package-lock.json', 'package.json'],
      note:
        'Set lodash 4.17.20 to 4.17.21 in package-lock.json (1 copy) and raised its range in package.json; ' +
        `npm regenerated package-lock.json from ${registry.url}, so each entry has the dependencies its version declares`,
    });
  });

  test('range styles are kept: tilde, exact and devDependencies; indentation and CRLF line ends too', async () => {
    const manifest = { name: 'a', devDependencies: { jest: '~29.0.0', 'left-pad': '1.1.0' } };
    const lockJson = {
      name: 'a',
      lockfileVersion: 3,
      packages: {
        '': { name: 'a', devDependencies: { jest: '~29.0.0', 'left-pad': '1.1.0' } },
        'node_modules/jest': { version: '29.0.1', dev: true },
        'node_modules/left-pad': { version: '1.1.0', resolved: `${registry.url}/left-pad/-/left-pad-1.1.0.tgz`, integrity: 'sha1-x', dev: true },
      },
    };
    const crlf = (text: string) => text.replace(/\n/g, '\r\n');
    const { workspace } = await apply(
      { 'web/package.json': crlf(json(manifest, 4)), 'web/package-lock.json': json(lockJson) },
      finding('web/package-lock.json', 'jest', 'npm', '29.0.1', '29.0.3'),
    );
    assert.equal(read(workspace, 'web/package.json'), crlf(json({ name: 'a', devDependencies: { jest: '~29.0.3', 'left-pad': '1.1.0' } }, 4)));
    const bumped = JSON.parse(read(workspace, 'web/package-lock.json'));
    assert.equal(bumped.packages['node_modules/jest'].version, '29.0.3');
    assert.equal(bumped.packages['node_modules/jest'].dev, true);
    assert.deepEqual(bumped.packages[''].devDependencies, { jest: '~29.0.3', 'left-pad': '1.1.0' });

    const exact = await apply(
      { 'package.json': json(manifest), 'package-lock.json': json(lockJson) },
      finding('package-lock.json', 'left-pad', 'npm', '1.1.0', '1.1.3'),
    );
    assert.equal(read(exact.workspace, 'package.json'), json({ name: 'a', devDependencies: { jest: '~29.0.0', 'left-pad': '1.1.3' } }));
    assert.equal(JSON.parse(read(exact.workspace, 'package-lock.json')).packages['node_modules/left-pad'].version, '1.1.3');
  });

  test('a transitive copy is raised where its dependent admits the fix, with the new dependencies of the fixed version; refused where it does not', async () => {
    const lockJson = (qsRange: string) => ({
      name: 'a',
      lockfileVersion: 2,
      requires: true,
      packages: {
        '': { name: 'a', dependencies: { express: '^4.0.0' } },
        'node_modules/express': { version: '4.17.1', dependencies: { qs: qsRange } },
        'node_modules/express/node_modules/qs': { version: '6.5.2', resolved: 'https://r/qs-6.5.2.tgz', integrity: 'sha512-q' },
      },
      dependencies: {
        express: {
          version: '4.17.1',
          requires: { qs: qsRange },
          dependencies: { qs: { version: '6.5.2', resolved: 'https://r/qs-6.5.2.tgz', integrity: 'sha512-q' } },
        },
      },
    });
    const manifest = json({ name: 'a', dependencies: { express: '^4.0.0' } });
    const { outcome, workspace } = await apply({ 'package.json': manifest, 'package-lock.json': json(lockJson('~6.5.2')) }, finding('package-lock.json', 'qs', 'npm', '6.5.2', '6.5.3'));
    const written = JSON.parse(read(workspace, 'package-lock.json'));
    const qs = Object.entries(written.packages as Record<string, { version: string; dependencies?: object }>).filter(([key]) => key.endsWith('node_modules/qs'));
    // 6.5.3 is the smallest fix (6.11.0 is newer), and it brings side-channel, which 6.5.2 did not need.
    assert.deepEqual(qs.map(([, entry]) => [entry.version, entry.dependencies]), [['6.5.3', { 'side-channel': '^1.0.4' }]]);
    assert.equal(written.packages['node_modules/side-channel'].version, '1.0.4');
    assert.deepEqual(written.packages['node_modules/express'].dependencies, { qs: '~6.5.2' });
    assert.equal(written.dependencies?.express?.requires?.qs ?? '~6.5.2', '~6.5.2');
    assert.deepEqual(outcome.changedFiles, ['package-lock.json']);

    const note = await refused({ 'package.json': manifest, 'package-lock.json': json(lockJson('6.5.2')) }, finding('package-lock.json', 'qs', 'npm', '6.5.2', '6.5.3'));
    assert.equal(note, 'qs was not upgraded to 6.5.3: express requires qs@6.5.2, which excludes 6.5.3; upgrade it instead');
  });

  test('lockfileVersion 1 trees are written again by npm, with the range in package.json', async () => {
    const v1 = {
      name: 'a',
      lockfileVersion: 1,
      requires: true,
      dependencies: { minimist: { version: '1.2.5', resolved: `${registry.url}/minimist/-/minimist-1.2.5.tgz`, integrity: 'sha512-m' } },
    };
    const { workspace } = await apply(
      { 'package.json': json({ name: 'a', dependencies: { minimist: '^1.2.0' } }), 'package-lock.json': json(v1) },
      finding('package-lock.json', 'minimist', 'npm', '1.2.5', '1.2.6'),
    );
    const written = JSON.parse(read(workspace, 'package-lock.json'));
    assert.equal(written.packages['node_modules/minimist'].version, '1.2.6');
    assert.deepEqual(written.packages[''].dependencies, { minimist: '^1.2.6' });
    assert.equal(read(workspace, 'package.json'), json({ name: 'a', dependencies: { minimist: '^1.2.6' } }));
  });

  test('a range whose upper bound excludes the fix is refused', async () => {
    const note = await refused(
      {
        'package.json': json({ name: 'a', dependencies: { lodash: '>=4.0.0 <4.17.21' } }),
        'package-lock.json': json({
          lockfileVersion: 3,
          packages: { '': { dependencies: { lodash: '>=4.0.0 <4.17.21' } }, 'node_modules/lodash': { version: '4.17.20' } },
        }),
      },
      finding('package-lock.json', 'lodash', 'npm', '4.17.20', '4.17.21'),
    );
    assert.equal(note, 'lodash was not upgraded to 4.17.21: the project declares lodash and its range >=4.0.0 <4.17.21 has an upper bound below 4.17.21');
  });

  test('with the stored advisories, the smallest version clear of all of them: 4.17.22 when another advisory affects 4.17.21', async () => {
    const affected = [{ ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '4.17.22' }] }] }];
    const advisories = {
      hasRecords: async () => true,
      forPackages: async () => new Map([['lodash', [{ id: 'GHSA-other', aliases: [], summary: null, severity: [], databaseSeverity: null, cweIds: [], references: [], affected }]]]),
    };
    const fixer = createDependencyFixer({ registry: createPackageRegistry({ pypiUrl: registry.url, npmUrl: registry.url }), advisories });
    const workspace = workTree({ 'package.json': packageJson, 'package-lock.json': lock });
    const outcome = await fixer.apply(finding('package-lock.json', 'lodash', 'npm', '4.17.20', '4.17.21'), workspace);
    assert.equal(outcome.fixed, true, outcome.note);
    assert.equal(JSON.parse(read(workspace, 'package-lock.json')).packages['node_modules/lodash'].version, '4.17.22');
    assert.match(read(workspace, 'package.json'), /"lodash": "\^4\.17\.22"/);
  });

  test("the repository's .npmrc never gets the service's environment to send to a registry", async () => {
    const secret = 'service-secret-value-7f3a9c';
    process.env.BULWARK_TEST_NPMRC_LEAK = secret;
    try {
      const manifest = JSON.parse(packageJson);
      manifest.dependencies['@acme/thing'] = '^1.0.0';
      const files = {
        'package.json': JSON.stringify(manifest, null, 2) + '\n',
        'package-lock.json': lock,
        '.npmrc': `@acme:registry=${registry.url}/leak/\${BULWARK_TEST_NPMRC_LEAK}/\n`,
      };
      await apply(files, finding('package-lock.json', 'lodash', 'npm', '4.17.20', '4.17.21'));
      assert.ok(!registry.requests.some((request) => request.includes(secret)), `a request carried the value: ${registry.requests.join(' ')}`);
    } finally {
      delete process.env.BULWARK_TEST_NPMRC_LEAK;
    }
  });

  describe("npm regenerates the lock sealed from the repository's choice of hosts", () => {
    let attacker: { url: string; requests: string[]; close(): Promise<void> };
    before(async () => {
      const requests: string[] = [];
      const server = http.createServer((request, response) => {
        requests.push(`${request.method} ${request.url}`);
        response.writeHead(502).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      attacker = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
    });
    after(() => attacker.close());
    const target = finding('package-lock.json', 'lodash', 'npm', '4.17.20', '4.17.21');
    const withDependency = (name: string, spec: string) => {
      const manifest = JSON.parse(packageJson);
      manifest.dependencies[name] = spec;
      return JSON.stringify(manifest, null, 2) + '\n';
    };
    const assertUntouched = (lockText: string) => {
      assert.deepEqual(attacker.requests, [], "the repository's host got no request");
      assert.ok(!lockText.includes(attacker.url), "the lock names no address of the repository's choosing");
    };

    test("the repository's .npmrc (scope registry, proxy, registry) is not read: npm asks only the configured registry", async () => {
      const scoped = await startRegistryStandIn({ npm: { ...REGISTRY_CATALOG.npm, '@acme/thing': { '1.0.0': {} } } });
      try {
        const fixer = createDependencyFixer({ registry: createPackageRegistry({ pypiUrl: scoped.url, npmUrl: scoped.url }) });
        const workspace = workTree({
          'package.json': withDependency('@acme/thing', '^1.0.0'),
          'package-lock.json': lock,
          '.npmrc': [`registry=${attacker.url}/`, `@acme:registry=${attacker.url}/`, `proxy=${attacker.url}/`, `https-proxy=${attacker.url}/`, 'noproxy=', ''].join('\n'),
        });
        const outcome = await fixer.apply(target, workspace);
        assert.equal(outcome.fixed, true, outcome.note);
        const written = read(workspace, 'package-lock.json');
        assert.equal(JSON.parse(written).packages['node_modules/@acme/thing'].resolved, `${scoped.url}/@acme/thing/-/thing-1.0.0.tgz`);
        assert.ok(scoped.requests.includes('/@acme%2fthing'), scoped.requests.join(' '));
        assertUntouched(written);
      } finally {
        await scoped.close();
      }
    });

    test('a dependency not taken from the registry (URL, git, git+file:, file:, link:, GitHub shorthand, alias to one) is refused with the reason', async () => {
      const specs: [string, string][] = [
        [`${attacker.url}/evil.tgz`, 'a URL'],
        [`git+${attacker.url}/evil.git`, 'a git repository'],
        ['git+file:///tmp/evil.git', 'a git repository'],
        ['file:../evil', 'a local folder or file'],
        ['link:../evil', 'a local folder or file'],
        ['acme/evil#main', 'a hosted git repository'],
        ['github:acme/evil', 'a hosted git repository'],
        [`npm:evil@${attacker.url}/evil.tgz`, 'an alias to a URL'],
      ];
      for (const [spec, kind] of specs) {
        const note = await refused({ 'package.json': withDependency('evil', spec), 'package-lock.json': lock }, target);
        assert.equal(
          note,
          `lodash was not upgraded to 4.17.21: package.json takes evil from ${kind}, not from the registry; npm would fetch it from there while writing package-lock.json again, so the fix leaves it to be done by hand`,
          spec,
        );
      }
      assertUntouched('');
    });

    test("the lock's own entries: a resolved address, a transitive spec or a version 1 version outside the registry is refused", async () => {
      const v3 = JSON.parse(lock);
      v3.packages['node_modules/express'].resolved = `${attacker.url}/express-4.18.2.tgz`;
      assert.match(await refused({ 'package.json': packageJson, 'package-lock.json': json(v3) }, target), /package-lock\.json's entry node_modules\/express is resolved from 127\.0\.0\.1:\d+ outside the registry, not from the registry/);
      const transitive = JSON.parse(lock);
      transitive.packages['node_modules/express'].dependencies.evil = `git+${attacker.url}/evil.git`;
      assert.match(await refused({ 'package.json': packageJson, 'package-lock.json': json(transitive) }, target), /entry node_modules\/express takes evil from a git repository/);
      const v1 = {
        name: 'a',
        lockfileVersion: 1,
        dependencies: { lodash: { version: '4.17.20' }, evil: { version: `git+${attacker.url}/evil.git#abc` } },
      };
      assert.match(await refused({ 'package.json': json({ name: 'a', dependencies: { lodash: '^4.17.20' } }), 'package-lock.json': json(v1) }, target), /entry evil is a git repository/);
      assertUntouched('');
    });

    test('a registry whose packuments give tarballs on another host: the lock npm wrote is refused, not kept', async () => {
      const elsewhere = await startRegistryStandIn(REGISTRY_CATALOG, { tarballsAt: attacker.url });
      try {
        const fixer = createDependencyFixer({ registry: createPackageRegistry({ pypiUrl: elsewhere.url, npmUrl: elsewhere.url }) });
        const files = { 'package.json': packageJson, 'package-lock.json': lock };
        const workspace = workTree(files);
        const outcome = await fixer.apply(target, workspace);
        assert.deepEqual({ fixed: outcome.fixed, changedFiles: outcome.changedFiles }, { fixed: false, changedFiles: [] });
        assert.match(outcome.note, /: npm wrote a lock in which package-lock\.json's entry node_modules\/\S+ is resolved from 127\.0\.0\.1:\d+ outside the registry, and a fix does not bring in packages from another host$/);
        for (const [file, text] of Object.entries(files)) assert.equal(read(workspace, file), text);
        assertUntouched(read(workspace, 'package-lock.json'));
      } finally {
        await elsewhere.close();
      }
    });
  });

  test('npm cannot reach the registry: refused with the reason, every file left as it was', async () => {
    const unreachable = createDependencyFixer({ registry: createPackageRegistry({ pypiUrl: 'http://127.0.0.1:9', npmUrl: 'http://127.0.0.1:9' }) });
    const files = { 'package.json': packageJson, 'package-lock.json': lock };
    const workspace = workTree(files);
    const outcome = await unreachable.apply(finding('package-lock.json', 'lodash', 'npm', '4.17.20', '4.17.21'), workspace);
    assert.equal(outcome.fixed, false);
    assert.deepEqual(outcome.changedFiles, []);
    assert.match(outcome.note, /^lodash was not upgraded to 4\.17\.21: npm could not regenerate package-lock\.json from http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED.*\), and a lock it did not write would install something else than it says$/);
    for (const [file, text] of Object.entries(files)) assert.equal(read(workspace, file), text, `${file} is unchanged`);
  });

  test('a second advisory of the same package: raised further, or nothing to do when an earlier fix went far enough', async () => {
    const files = {
      'package.json': json({ name: 'a', dependencies: { lodash: '^4.17.15' } }),
      'package-lock.json': json({ lockfileVersion: 3, packages: { '': { name: 'a', dependencies: { lodash: '^4.17.15' } }, 'node_modules/lodash': { version: '4.17.15' } } }),
    };
    const workspace = workTree(files);
    const first = await dependencyFixer.apply(finding('package-lock.json', 'lodash', 'npm', '4.17.15', '4.17.19'), workspace);
    const second = await dependencyFixer.apply(finding('package-lock.json', 'lodash', 'npm', '4.17.15', '4.17.21'), workspace);
    const third = await dependencyFixer.apply(finding('package-lock.json', 'lodash', 'npm', '4.17.15', '4.17.19'), workspace);
    assert.deepEqual([first.fixed, second.fixed, third.fixed], [true, true, true]);
    assert.deepEqual(third, { fixed: true, changedFiles: [], note: 'package-lock.json has no lodash older than 4.17.19 any more; nothing to change' });
    assert.equal(JSON.parse(read(workspace, 'package-lock.json')).packages['node_modules/lodash'].version, '4.17.21');
    assert.equal(read(workspace, 'package.json'), json({ name: 'a', dependencies: { lodash: '^4.17.21' } }));
  });
});

describe('dependency fixer: pip requirements', () => {
  test('the pin takes the fixed version; extras, markers, comments and other lines stay', async () => {
    const text = [
      '# web app',
      'Django==3.2.1',
      'requests[socks] == 2.25.0 ; python_version >= "3.8"  # http client',
      'urllib3>=1.26',
      '',
    ].join('\n');
    const { outcome, workspace } = await apply({ 'requirements.txt': text }, finding('requirements.txt', 'requests', 'PyPI', '2.25.0', '2.31.0'));
    assert.equal(read(workspace, 'requirements.txt'), text.replace('== 2.25.0', '== 2.31.0'));
    assert.deepEqual(outcome, { fixed: true, changedFiles: ['requirements.txt'], note: 'Pinned requests to 2.31.0 instead of 2.25.0 in requirements.txt' });
  });

  test('its --hash options go, on continuation lines or the same line, with a note to regenerate them', async () => {
    const text = [
      'certifi==2023.7.22 \\',
      '    --hash=sha256:aaaa',
      'requests==2.25.0 \\',
      '    --hash=sha256:1111 \\',
      '    --hash=sha256:2222',
      '    # via -r requirements.in',
      'idna==3.4 --hash=sha256:bbbb',
      'Requests_Toolbelt==0.9.1 --hash=sha256:cccc  # pinned',
      '',
    ].join('\n');
    const { outcome, workspace } = await apply({ 'requirements.txt': text, 'requirements.in': 'requests\n' }, finding('requirements.txt', 'requests', 'PyPI', '2.25.0', '2.31.0'));
    assert.equal(
      read(workspace, 'requirements.txt'),
      ['certifi==2023.7.22 \\', '    --hash=sha256:aaaa', 'requests==2.31.0', '    # via -r requirements.in', 'idna==3.4 --hash=sha256:bbbb', 'Requests_Toolbelt==0.9.1 --hash=sha256:cccc  # pinned', ''].join('\n'),
    );
    assert.equal(
      outcome.note,
      "Pinned requests to 2.31.0 instead of 2.25.0 in requirements.txt; removed its --hash options, which named the old version's files: " +
        'regenerate them (pip-compile --generate-hashes), as pip wants a hash for every requirement once any has one; ' +
        'make sure requirements.in admits 2.31.0 before it is compiled again',
    );
    const toolbelt = await apply({ 'requirements.txt': text }, finding('requirements.txt', 'requests-toolbelt', 'PyPI', '0.9.1', '1.0.0'));
    assert.match(read(toolbelt.workspace, 'requirements.txt'), /^Requests_Toolbelt==1\.0\.0  # pinned$/m);
  });

  test('an included file is fixed where the pin is, whatever its name', async () => {
    const { workspace, outcome } = await apply(
      { 'requirements.txt': '-r requirements/base.txt\n', 'requirements/base.txt': 'Jinja2==2.11.2\r\nflask==2.0.0\r\n' },
      finding('requirements/base.txt', 'jinja2', 'PyPI', '2.11.2', '2.11.3'),
    );
    assert.equal(read(workspace, 'requirements/base.txt'), 'Jinja2==2.11.3\r\nflask==2.0.0\r\n');
    assert.equal(read(workspace, 'requirements.txt'), '-r requirements/base.txt\n');
    assert.deepEqual(outcome.changedFiles, ['requirements/base.txt']);
  });
});

describe('dependency fixer: pins that must move together (resolved against the registry)', () => {
  /** The file's pins whose registry requirements another pin of the file does not meet: what pip would refuse. */
  function conflicts(text: string): string[] {
    const pins = new Map([...text.matchAll(/^([\w.-]+)==(\S+)$/gm)].map((m) => [m[1].toLowerCase(), m[2]]));
    const found: string[] = [];
    for (const [name, version] of pins) {
      const project = Object.entries(REGISTRY_CATALOG.pypi).find(([n]) => n.toLowerCase() === name)?.[1];
      for (const line of project?.[version] ?? []) {
        if (line.includes('extra ==')) continue;
        const [, required, specifier] = /^([\w.-]+)\s*([^;]*)/.exec(line)!;
        const pinned = pins.get(required.toLowerCase());
        if (pinned && specifier.trim() && !pep440.satisfies(pinned, specifier.trim())) found.push(`${name} ${version} needs ${required}${specifier.trim()}, pinned ${pinned}`);
      }
    }
    return found;
  }

  const flaskApp = ['Flask==0.12.2', 'Werkzeug==0.14.1', 'Jinja2==2.9.6', 'click==6.7', 'itsdangerous==0.24', 'MarkupSafe==1.0', 'requests==2.31.0', ''].join('\n');

  test('Flask 0.12.2 → 2.2.5 moves its pinned Werkzeug, Jinja2, click, itsdangerous and MarkupSafe to the smallest releases the new Flask accepts', async () => {
    assert.notDeepEqual(conflicts(flaskApp.replace('Flask==0.12.2', 'Flask==2.2.5')), [], 'the plain bump pip cannot install');
    const { outcome, workspace } = await apply({ 'requirements.txt': flaskApp }, finding('requirements.txt', 'flask', 'PyPI', '0.12.2', '2.2.5'));
    const text = read(workspace, 'requirements.txt');
    assert.equal(text, ['Flask==2.2.5', 'Werkzeug==2.2.2', 'Jinja2==3.0.0', 'click==8.0.0', 'itsdangerous==2.0.0', 'MarkupSafe==2.1.1', 'requests==2.31.0', ''].join('\n'));
    assert.deepEqual(conflicts(text), []);
    assert.equal(outcome.fixed, true);
    assert.match(outcome.note, /^Pinned Flask to 2\.2\.5 instead of 0\.12\.2 in requirements\.txt; to keep the file installable with Flask 2\.2\.5, also moved /);
    for (const moved of ['Werkzeug 0.14.1 → 2.2.2', 'Jinja2 2.9.6 → 3.0.0', 'click 6.7 → 8.0.0', 'itsdangerous 0.24 → 2.0.0', 'MarkupSafe 1.0 → 2.1.1']) assert.ok(outcome.note.includes(moved), moved);
    // Every one of them is a new major version, which the user is told to review.
    assert.deepEqual(
      outcome.userNotes?.map((note) => note.split(',')[0]),
      ['Flask moves from 0.12.2 to 2.2.5', 'Werkzeug moves from 0.14.1 to 2.2.2', 'Jinja2 moves from 2.9.6 to 3.0.0', 'click moves from 6.7 to 8.0.0', 'itsdangerous moves from 0.24 to 2.0.0', 'MarkupSafe moves from 1.0 to 2.1.1'],
    );
  });

  test('Jinja2 3.1.3 next to MarkupSafe 1.0: MarkupSafe moves to 2.0.0, the first release Jinja2 3 accepts', async () => {
    const text = 'Jinja2==2.10.1\nMarkupSafe==1.0\n';
    const { outcome, workspace } = await apply({ 'requirements.txt': text }, finding('requirements.txt', 'jinja2', 'PyPI', '2.10.1', '3.1.3'));
    assert.equal(read(workspace, 'requirements.txt'), 'Jinja2==3.1.3\nMarkupSafe==2.0.0\n');
    assert.match(outcome.note, /also moved MarkupSafe 1\.0 → 2\.0\.0/);
  });

  test('Werkzeug 3.0.3 next to Flask 2.2.5: Flask moves to 3.0.0, the first release written for Werkzeug 3', async () => {
    const text = ['Flask==2.2.5', 'Werkzeug==2.2.3', 'Jinja2==3.1.2', 'MarkupSafe==2.1.3', 'click==8.1.3', 'itsdangerous==2.1.2', 'blinker==1.6.2', ''].join('\n');
    const { outcome, workspace } = await apply({ 'requirements.txt': text }, finding('requirements.txt', 'werkzeug', 'PyPI', '2.2.3', '3.0.3'));
    assert.equal(read(workspace, 'requirements.txt'), text.replace('Werkzeug==2.2.3', 'Werkzeug==3.0.3').replace('Flask==2.2.5', 'Flask==3.0.0'));
    assert.deepEqual(outcome.userNotes?.map((note) => note.split(',')[0]), ['Werkzeug moves from 2.2.3 to 3.0.3', 'Flask moves from 2.2.5 to 3.0.0']);
  });

  test('a major version crossed alone (Django 1.9 → 3.2.25) is said in the note and left to the user to review', async () => {
    const { outcome, workspace } = await apply({ 'requirements.txt': 'Django==1.9\nrequests==2.31.0\n' }, finding('requirements.txt', 'django', 'PyPI', '1.9', '3.2.25'));
    assert.equal(read(workspace, 'requirements.txt'), 'Django==3.2.25\nrequests==2.31.0\n');
    const review = 'Django moves from 1.9 to 3.2.25, a new major version: read its changelog for breaking changes and run the tests before merging';
    assert.deepEqual(outcome.userNotes, [review]);
    assert.equal(outcome.note, `Pinned Django to 3.2.25 instead of 1.9 in requirements.txt; ${review}`);
  });

  test('a version another advisory still affects is passed over for the next release that fixes both', async () => {
    const advisories = {
      hasRecords: async () => true,
      forPackages: async () =>
        new Map([['flask', [{ id: 'GHSA-other', aliases: [], summary: null, severity: [], databaseSeverity: null, cweIds: [], references: [], affected: [{ ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2.3.2' }] }] }] }]]]),
    };
    const fixer = createDependencyFixer({ registry: createPackageRegistry({ pypiUrl: registry.url, npmUrl: registry.url }), advisories });
    const workspace = workTree({ 'requirements.txt': flaskApp });
    const outcome = await fixer.apply(finding('requirements.txt', 'flask', 'PyPI', '0.12.2', '2.2.5'), workspace);
    const text = read(workspace, 'requirements.txt');
    assert.match(text, /^Flask==2\.3\.3$/m);
    assert.match(text, /^Werkzeug==2\.3\.7$/m);
    assert.deepEqual(conflicts(text), []);
    assert.equal(outcome.fixed, true);
  });

  test('the registry out of reach: a new major version next to other pins is refused; a lone pin, or a move within the major version, gets the plain bump', async () => {
    const offline = createDependencyFixer({ registry: createPackageRegistry({ pypiUrl: 'http://127.0.0.1:9', npmUrl: 'http://127.0.0.1:9' }) });
    const workspace = workTree({ 'requirements.txt': flaskApp, 'solo/requirements.txt': 'Flask==0.12.2\n' });
    const refusal = await offline.apply(finding('requirements.txt', 'flask', 'PyPI', '0.12.2', '2.2.5'), workspace);
    assert.equal(refusal.fixed, false);
    assert.match(refusal.note, /^flask was not upgraded to 2\.2\.5: the package registry is needed to check that requirements\.txt's other pins still fit, and http:\/\/127\.0\.0\.1:9 could not be reached/);
    assert.equal(read(workspace, 'requirements.txt'), flaskApp);
    const alone = await offline.apply(finding('solo/requirements.txt', 'flask', 'PyPI', '0.12.2', '2.2.5'), workspace);
    assert.equal(read(workspace, 'solo/requirements.txt'), 'Flask==2.2.5\n');
    assert.equal(alone.fixed, true);
    const sameMajor = await offline.apply(finding('requirements.txt', 'jinja2', 'PyPI', '2.9.6', '2.10.1'), workspace);
    assert.equal(read(workspace, 'requirements.txt'), flaskApp.replace('Jinja2==2.9.6', 'Jinja2==2.10.1'));
    assert.equal(sameMajor.fixed, true);
    assert.match(sameMajor.note, /requirements\.txt's other pins were not checked against what jinja2 2\.10\.1 requires/);
  });

  test('the registry out of reach: a package numbered by date (certifi) moves to the next year\'s release with the plain bump, saying the other pins went unchecked', async () => {
    const offline = createDependencyFixer({ registry: createPackageRegistry({ pypiUrl: 'http://127.0.0.1:9', npmUrl: 'http://127.0.0.1:9' }) });
    const text = 'certifi==2022.12.7\nrequests==2.31.0\n';
    const workspace = workTree({ 'requirements.txt': text });
    const outcome = await offline.apply(finding('requirements.txt', 'certifi', 'PyPI', '2022.12.7', '2023.7.22'), workspace);
    assert.equal(outcome.fixed, true, outcome.note);
    assert.equal(read(workspace, 'requirements.txt'), text.replace('2022.12.7', '2023.7.22'));
    assert.match(outcome.note, /other pins were not checked against what certifi 2023\.7\.22 requires/);
  });
});

describe('dependency fixer: Poetry and uv', () => {
  const poetryLock = `# This file is automatically @generated by Poetry 1.8.2 and should not be changed by hand.

[[package]]
name = "requests"
version = "2.25.0"
description = "Python HTTP for Humans."
optional = false
python-versions = ">=3.7"
files = [
    {file = "requests-2.25.0-py2.py3-none-any.whl", hash = "sha256:aaaa"},
    {file = "requests-2.25.0.tar.gz", hash = "sha256:bbbb"},
]

[package.dependencies]
idna = ">=2.5,<4"

[[package]]
name = "idna"
version = "3.4"
description = "Internationalized Domain Names in Applications (IDNA)"
optional = false
python-versions = ">=3.5"
files = [
    {file = "idna-3.4-py3-none-any.whl", hash = "sha256:cccc"},
]

[metadata]
lock-version = "2.0"
python-versions = "^3.8"
content-hash = "0123"
`;
  const pyproject = `[tool.poetry]
name = "app"

[tool.poetry.dependencies]
python = "^3.8"
# HTTP
requests = { version = "^2.25", extras = ["socks"] }
idna = "3.4"

[tool.poetry.group.dev.dependencies]
pytest = "^7.0"
`;

  test('poetry.lock: the entry takes the fixed version with its files emptied, and pyproject.toml the raised constraint', async () => {
    const { outcome, workspace } = await apply({ 'poetry.lock': poetryLock, 'pyproject.toml': pyproject }, finding('poetry.lock', 'requests', 'PyPI', '2.25.0', '2.31.0'));
    assert.equal(
      read(workspace, 'poetry.lock'),
      poetryLock
        .replace('version = "2.25.0"', 'version = "2.31.0"')
        .replace(/files = \[\n {4}\{file = "requests-2\.25\.0-py2[^\]]*\]/, 'files = []'),
    );
    assert.equal(read(workspace, 'pyproject.toml'), pyproject.replace('version = "^2.25"', 'version = "^2.31.0"'));
    assert.deepEqual(outcome, {
      fixed: true,
      changedFiles: ['poetry.lock', 'pyproject.toml'],
      note:
        'Set requests 2.25.0 to 2.31.0 in poetry.lock and raised its constraint in pyproject.toml; its old file hashes were removed, ' +
        'so run poetry lock (poetry lock --no-update before Poetry 2) to record the new ones',
    });
  });

  test('a bare Poetry version is exact, and a transitive package changes the lock alone', async () => {
    const bare = await apply({ 'poetry.lock': poetryLock, 'pyproject.toml': pyproject }, finding('poetry.lock', 'idna', 'PyPI', '3.4', '3.7'));
    // requests 2.25.0 requires idna<3, so the locked requests moves to 2.31.0 (idna<4) with it.
    assert.equal(read(bare.workspace, 'pyproject.toml'), pyproject.replace('idna = "3.4"', 'idna = "3.7"').replace('version = "^2.25"', 'version = "^2.31.0"'));
    assert.match(read(bare.workspace, 'poetry.lock'), /name = "idna"\nversion = "3\.7"\n[^[]*files = \[\]\n\n\[metadata\]/);
    assert.match(read(bare.workspace, 'poetry.lock'), /name = "requests"\nversion = "2\.31\.0"\n/);
    assert.match(bare.outcome.note, /also moved requests 2\.25\.0 → 2\.31\.0$/);

    const transitive = await apply({ 'poetry.lock': poetryLock, 'pyproject.toml': pyproject.replace('idna = "3.4"\n', '') }, finding('poetry.lock', 'idna', 'PyPI', '3.4', '3.7'));
    // idna is not declared, so only the constraint of requests (which moves with it) changes there.
    assert.deepEqual(transitive.outcome.changedFiles, ['poetry.lock', 'pyproject.toml']);
    assert.doesNotMatch(read(transitive.workspace, 'pyproject.toml'), /idna/);
  });

  test('uv.lock loses the sdist and wheels of the old version; PEP 621 constraints are raised in place', async () => {
    const uvLock = `version = 1
requires-python = ">=3.9"

[[package]]
name = "app"
version = "0.1.0"
source = { editable = "." }
dependencies = [
    { name = "jinja2" },
]

[[package]]
name = "jinja2"
version = "3.1.2"
source = { registry = "https://pypi.org/simple" }
dependencies = [
    { name = "markupsafe" },
]
sdist = { url = "https://files.pythonhosted.org/jinja2-3.1.2.tar.gz", hash = "sha256:aaaa", size = 10 }
wheels = [
    { url = "https://files.pythonhosted.org/jinja2-3.1.2-py3-none-any.whl", hash = "sha256:bbbb", size = 20 },
]
`;
    const project = `[project]
name = "app"
dependencies = [
    "jinja2>=3.1,<4",  # templates
]

[project.optional-dependencies]
docs = ["Jinja2 >= 3.0 ; python_version >= '3.9'"]
`;
    const { outcome, workspace } = await apply({ 'svc/uv.lock': uvLock, 'svc/pyproject.toml': project }, finding('svc/uv.lock', 'jinja2', 'PyPI', '3.1.2', '3.1.4'));
    assert.equal(
      read(workspace, 'svc/uv.lock'),
      uvLock.replace('version = "3.1.2"', 'version = "3.1.4"').replace(/sdist = .*\nwheels = \[\n.*\n\]\n/, ''),
    );
    assert.equal(read(workspace, 'svc/pyproject.toml'), project.replace('"jinja2>=3.1,<4"', '"jinja2>=3.1.4,<4"').replace('Jinja2 >= 3.0 ;', 'Jinja2 >= 3.1.4 ;'));
    assert.match(outcome.note, /run uv lock to record the new ones$/);
  });

  test('a finding in pyproject.toml itself: every declaration is raised in place, comments kept', async () => {
    const project = `[project]
name = "app"
dependencies = [
    "urllib3==1.26.4",  # pinned for the proxy
    "requests",
]

[dependency-groups]
test = ['urllib3 ~= 1.26.4 ; python_version < "3.12"']

[tool.uv]
constraint-dependencies = ["urllib3<2"]
`;
    const { outcome, workspace } = await apply({ 'pyproject.toml': project }, finding('pyproject.toml', 'urllib3', 'PyPI', '1.26.4', '1.26.18'));
    assert.equal(
      read(workspace, 'pyproject.toml'),
      project.replace('"urllib3==1.26.4"', '"urllib3==1.26.18"').replace("'urllib3 ~= 1.26.4 ;", "'urllib3 ~= 1.26.18 ;"),
    );
    assert.deepEqual(outcome, {
      fixed: true,
      changedFiles: ['pyproject.toml'],
      note: 'Raised the constraint on urllib3 in pyproject.toml to admit 1.26.18; lock the project again if it has a lockfile',
    });
  });

  test('a constraint that cannot admit the fixed version is refused', async () => {
    const note = await refused(
      { 'poetry.lock': poetryLock, 'pyproject.toml': pyproject.replace('version = "^2.25"', 'version = ">=2.25,<2.26"') },
      finding('poetry.lock', 'requests', 'PyPI', '2.25.0', '2.31.0'),
    );
    assert.equal(note, 'requests was not upgraded to 2.31.0: pyproject.toml declares requests and its constraint >=2.25,<2.26 excludes 2.31.0');
  });
});

describe('dependency fixer: what it leaves alone', () => {
  test('no fixed version, unsupported files, missing metadata', async () => {
    assert.equal(
      await refused({ 'package-lock.json': '{}\n' }, finding('package-lock.json', 'lodash', 'npm', '4.17.20', null)),
      'No fixed version of lodash is published for GHSA-xxxx-yyyy-zzzz, so there is nothing to upgrade to',
    );
    assert.equal(
      await refused({ 'yarn.lock': 'lodash@^4:\n  version "4.17.20"\n' }, finding('yarn.lock', 'lodash', 'npm', '4.17.20', '4.17.21')),
      'Automatic upgrades in yarn.lock (npm) are not supported; upgrade lodash to 4.17.21 or later by hand',
    );
    assert.equal(
      await refused({ 'Pipfile.lock': '{}\n' }, finding('Pipfile.lock', 'requests', 'PyPI', '2.25.0', '2.31.0')),
      'Automatic upgrades in Pipfile.lock (PyPI) are not supported; upgrade requests to 2.31.0 or later by hand',
    );
    const bare = finding('go.mod', 'x', 'Go', '1.0.0', '1.0.1');
    assert.equal(await refused({ 'go.mod': 'module a\n' }, { ...bare, metadata: {} }), 'The finding does not say which package and version to upgrade');
  });

  test('fixerFor routes sbom findings here', () => {
    assert.equal(fixerFor(finding('package-lock.json', 'lodash', 'npm', '1.0.0', '1.0.1'))?.name, 'dependencies');
  });
});

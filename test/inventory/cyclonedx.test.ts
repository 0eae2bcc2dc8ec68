import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as CDX from '@cyclonedx/cyclonedx-library';
import { component, type Component } from '../../src/inventory/component.ts';
import { cyclonedxJson } from '../../src/inventory/cyclonedx.ts';
import { buildInventory } from '../../src/inventory/inventory.ts';

const EXTRACTORS = path.join(import.meta.dirname, '../../src/inventory/extractors');

/** The library's strict validator: the CycloneDX 1.6 JSON schema (with SPDX ids and formats) through ajv. */
const validator = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot6);

async function assertValid(json: string): Promise<void> {
  const error = await validator.validate(json);
  assert.equal(error, null, `not valid CycloneDX 1.6: ${JSON.stringify(error, null, 2)}`);
}

interface BomComponent {
  'bom-ref': string;
  version?: string;
  hashes?: { alg: string; content: string }[];
  licenses?: ({ license: { id?: string; name?: string } } | { expression: string })[];
  properties?: { name: string; value: string }[];
}

interface Bom {
  metadata: { component: { 'bom-ref': string } };
  components: BomComponent[];
  dependencies?: { ref: string; dependsOn?: string[] }[];
}

/**
 * A repository as a real one mixes them: Maven reactors, npm and pnpm front ends, a Rust tool, Python
 * services, PHP, a Flutter app and a .NET one.
 */
async function multiFormatRepository(dir: string): Promise<void> {
  const copy = async (from: string, to: string) => {
    await fs.mkdir(path.dirname(path.join(dir, to)), { recursive: true });
    await fs.cp(path.join(EXTRACTORS, from), path.join(dir, to), { recursive: true });
  };
  await copy('maven-pom/testdata/shop', 'backend');
  await copy('npm-lock/testdata/npm-v2/package-lock.json', 'frontend/package-lock.json');
  await copy('pnpm-lock/testdata/pnpm-v9-workspace', 'web');
  await copy('cargo-lock/testdata/Cargo.lock', 'tools/Cargo.lock');
  await copy('poetry-lock/testdata/poetry-2.1', 'services/notifier');
  await copy('uv-lock/testdata/uv/uv.lock', 'services/inventory/uv.lock');
  await copy('composer-lock/testdata/composer.lock', 'legacy/composer.lock');
  await copy('composer-lock/testdata/composer.json', 'legacy/composer.json');
  await copy('maven-pom/testdata/boot-app/pom.xml', 'demo/pom.xml');
  await copy('maven-pom/testdata/billing', 'billing');
  await copy('pdm-lock/testdata/pdm-groups', 'services/gateway');
  await copy('poetry-lock/testdata/poetry-1.1', 'services/billing-worker');
  await copy('pipfile-lock/testdata/release-files', 'tools/cli');
  await copy('pubspec-lock/testdata/pubspec.lock', 'mobile/pubspec.lock');
  await copy('nuget-lock/testdata/packages.lock.json', 'desktop/packages.lock.json');
}

describe('CycloneDX BOM', () => {
  let dir: string;
  let bom: Bom;
  let json: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bulwark-bom-'));
    await multiFormatRepository(dir);
    const inventory = await buildInventory(dir);
    json = cyclonedxJson({ name: 'acme/platform', version: '0123456789abcdef0123456789abcdef01234567' }, inventory.components);
    bom = JSON.parse(json) as Bom;
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  const byRef = (ref: string) => bom.components.find((c) => c['bom-ref'] === ref);
  const dependsOn = (ref: string) => bom.dependencies?.find((d) => d.ref === ref)?.dependsOn;
  const property = (c: BomComponent | undefined, name: string) => c?.properties?.filter((p) => p.name === name).map((p) => p.value);

  test('a multi-format repository gives a BOM valid against the CycloneDX 1.6 schema', async () => {
    await assertValid(json);
    // The validator does check: a hash that is not hex is refused.
    const broken = JSON.parse(json) as Bom & { unknownField?: boolean };
    broken.components[0]!.hashes = [{ alg: 'SHA-256', content: 'not hex' }];
    assert.notEqual(await validator.validate(JSON.stringify(broken)), null);
    const ecosystems = new Set(bom.components.flatMap((c) => property(c, 'bulwark:ecosystem') ?? []));
    assert.deepEqual([...ecosystems].sort(), ['Maven', 'NuGet', 'Packagist', 'Pub', 'PyPI', 'crates.io', 'npm']);
  });

  test('the dependency graph: lockfile edges by bom-ref, and the repository depending on direct components', () => {
    assert.deepEqual(dependsOn('pkg:npm/optimist@0.6.1'), ['pkg:npm/minimist@0.0.10', 'pkg:npm/wordwrap@0.0.3']);
    assert.deepEqual(dependsOn('pkg:cargo/legacy-config@0.3.0'), ['pkg:cargo/serde@0.9.15']);
    assert.deepEqual(dependsOn('pkg:pypi/fastapi@0.109.0'), ['pkg:pypi/pydantic@2.5.3', 'pkg:pypi/starlette@0.35.1', 'pkg:pypi/typing-extensions@4.9.0']);
    assert.deepEqual(dependsOn('pkg:composer/phpunit/phpunit@9.6.13'), ['pkg:composer/sebastian/diff@4.0.5']);
    assert.deepEqual(dependsOn('pkg:npm/%40floating-ui/core@1.6.1'), ['pkg:npm/%40floating-ui/utils@0.2.2']);
    const direct = dependsOn(bom.metadata.component['bom-ref']) ?? [];
    assert.ok(direct.includes('pkg:npm/lodash@4.17.21'));
    assert.ok(direct.includes('pkg:maven/org.springframework.boot/spring-boot-starter-web@3.2.5'));
    assert.ok(!direct.includes('pkg:npm/wordwrap@0.0.3'));
    // Every ref the graph names is a component of the BOM (or the repository itself).
    const refs = new Set([bom.metadata.component['bom-ref'], ...bom.components.map((c) => c['bom-ref'])]);
    for (const entry of bom.dependencies ?? []) for (const ref of [entry.ref, ...(entry.dependsOn ?? [])]) assert.ok(refs.has(ref), ref);
  });

  test('hashes from lockfile integrity fields, as hex', () => {
    const integrity = 'nd6wRL6n389/2U2Qe2ZKJMH3z13WNS+hR2bhdS4SfdlJpWEKZRGvJgG1eWPJFSPKNTtm5Icp6OfTebWIUpAUrA==';
    assert.deepEqual(byRef('pkg:npm/regenerator-runtime@0.14.1')?.hashes, [
      { alg: 'SHA-512', content: Buffer.from(integrity, 'base64').toString('hex') },
    ]);
    assert.deepEqual(byRef('pkg:cargo/clap@4.4.6')?.hashes, [
      { alg: 'SHA-256', content: 'd04704f56c2cde07f43e8e2c154b43f216dc5c92fc98ada720177362f953b956' },
    ]);
    assert.equal(byRef('pkg:pypi/annotated-types@0.6.0')?.hashes?.[0]?.alg, 'SHA-256');
    const sha256 = (content: string) => [{ alg: 'SHA-256', content }];
    // pdm.lock, poetry.lock 1.1's [metadata.files]: the sdist's
    assert.deepEqual(byRef('pkg:pypi/httptools@0.6.1')?.hashes, sha256('d28caccbb4a4a6c8c4b962b4f9fde9a39d3f9dad35365806c2bde242b9215438'));
    assert.deepEqual(byRef('pkg:pypi/sqlalchemy@1.4.46')?.hashes, sha256('509bb07e0b399124c8f1813e6812b9d250e5601c1a0125afe08f4cfa75c2d935'));
    // Pipfile.lock: only a release of one file
    assert.deepEqual(byRef('pkg:pypi/docopt@0.6.2')?.hashes, sha256('49b3a825280bd66b3aa83585ef59c4a8c82f2c8a522dbe754a8bc8d08c85c491'));
    assert.deepEqual(byRef('pkg:pub/http@1.1.0')?.hashes, sha256('759d1a329847dd0f39226c688d3e06a6b8679668e350e2891a6474f8b4bb8525'));
    // NuGet's contentHash is not the .nupkg's digest
    assert.equal(byRef('pkg:nuget/Newtonsoft.Json@13.0.1')?.hashes, undefined);
  });

  test('declared licenses: SPDX ids as ids, other names by name', () => {
    assert.deepEqual(byRef('pkg:npm/regenerator-runtime@0.14.1')?.licenses, [{ license: { id: 'MIT' } }]);
    assert.deepEqual(byRef('pkg:npm/optimist@0.6.1')?.licenses, [{ license: { name: 'MIT/X11' } }]);
    assert.deepEqual(byRef('pkg:composer/symfony/http-kernel@v5.4.0')?.licenses, [{ license: { name: 'proprietary' } }, { license: { id: 'MIT' } }]);
  });

  test('Maven: versions resolved through the reactor, its own modules first-party, what Maven Central holds noted', () => {
    assert.ok(byRef('pkg:maven/org.testcontainers/postgresql@1.19.8'));
    assert.deepEqual(property(byRef('pkg:maven/com.example.shop/shop-common@1.4.0-SNAPSHOT'), 'bulwark:first_party'), ['true']);
    const unversioned = byRef('pkg:maven/org.springframework.boot/spring-boot-starter-security');
    assert.equal(unversioned?.version, undefined);
    assert.match(property(unversioned, 'bulwark:note')?.[0] ?? '', /spring-boot-starter-parent:3\.2\.5, which the repository does not hold/);
    // Declared once by a parent, a dependency of each module that inherits it.
    const lombok = byRef('pkg:maven/org.projectlombok/lombok@1.18.32');
    assert.deepEqual(property(lombok, 'bulwark:source_file')?.sort(), [
      'billing/billing-core/pom.xml',
      'billing/billing-service/pom.xml',
      'billing/billing-testkit/pom.xml',
      'billing/pom.xml',
    ]);
    assert.deepEqual(property(lombok, 'bulwark:note'), ['inherited from the parent pom billing/pom.xml']);
  });
});

describe('CycloneDX licenses and edges, by construction', () => {
  const base = { ecosystem: 'npm', direct: true, sourceFile: 'package-lock.json' } as const;

  test('SPDX expressions become the one expression the schema allows; several declarations their disjunction', async () => {
    const components: Component[] = [
      { ...component({ ...base, name: 'a', version: '1.0.0' }), licenses: ['(MIT OR Apache-2.0)'] },
      { ...component({ ...base, name: 'b', version: '1.0.0' }), licenses: ['GPL-2.0-only WITH Classpath-exception-2.0'] },
      { ...component({ ...base, name: 'c', version: '1.0.0' }), licenses: ['MIT', 'Apache-2.0 AND BSD-3-Clause'] },
      { ...component({ ...base, name: 'd', version: '1.0.0' }), licenses: ['MIT', 'ISC'] },
      { ...component({ ...base, name: 'e', version: '1.0.0' }), licenses: ['SEE LICENSE IN LICENSE.md'] },
      // an edge to a package not in the BOM is dropped rather than dangling
      { ...component({ ...base, name: 'f', version: '1.0.0' }), dependsOn: ['pkg:npm/a@1.0.0', 'pkg:npm/missing@1.0.0'] },
    ];
    const json = cyclonedxJson({ name: 'acme/x' }, components);
    await assertValid(json);
    const bom = JSON.parse(json) as Bom;
    const licenses = (name: string) => bom.components.find((c) => c['bom-ref'] === `pkg:npm/${name}@1.0.0`)?.licenses;
    assert.deepEqual(licenses('a'), [{ expression: '(MIT OR Apache-2.0)' }]);
    assert.deepEqual(licenses('b'), [{ expression: 'GPL-2.0-only WITH Classpath-exception-2.0' }]);
    assert.deepEqual(licenses('c'), [{ expression: 'MIT OR (Apache-2.0 AND BSD-3-Clause)' }]);
    assert.deepEqual(licenses('d'), [{ license: { id: 'ISC' } }, { license: { id: 'MIT' } }]);
    assert.deepEqual(licenses('e'), [{ license: { name: 'SEE LICENSE IN LICENSE.md' } }]);
    assert.deepEqual(bom.dependencies?.find((d) => d.ref === 'pkg:npm/f@1.0.0')?.dependsOn, ['pkg:npm/a@1.0.0']);
  });
});

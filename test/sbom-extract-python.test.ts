import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { Component } from '../src/sbom/component.ts';
import { ExtractError } from '../src/sbom/extractors/extractor.ts';
import type { ExtractContext, Extractor } from '../src/sbom/extractors/extractor.ts';
import { pdmLockExtractor } from '../src/sbom/extractors/pdm-lock.ts';
import { pipfileLockExtractor } from '../src/sbom/extractors/pipfile-lock.ts';
import { poetryLockExtractor } from '../src/sbom/extractors/poetry-lock.ts';
import { requirementsExtractor } from '../src/sbom/extractors/python-requirements.ts';
import { uvLockExtractor } from '../src/sbom/extractors/uv-lock.ts';

// Each extractor reads a fixture laid out as it would sit in a repository, and the result is compared
// with the complete expected component list.

const FIXTURES = path.join(import.meta.dirname, 'fixtures/sbom/python');

type Tree = Map<string, string>;

/** The files of a fixture folder, keyed by repository path: the folder's own path replaced by `at`. */
function fixtureTree(folder: string, at: string): Tree {
  const root = path.join(FIXTURES, folder);
  const tree: Tree = new Map();
  for (const relative of fs.readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    const full = path.join(root, relative);
    if (fs.statSync(full).isFile()) tree.set(path.posix.join(at, relative.split(path.sep).join('/')), fs.readFileSync(full, 'utf8'));
  }
  return tree;
}

/** An in-memory tree that, like the real one, answers null for missing paths and paths outside it. */
function treeContext(tree: Tree): ExtractContext & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    async readFile(requested) {
      reads.push(requested);
      const normalized = path.posix.normalize(requested);
      if (normalized.startsWith('../') || path.posix.isAbsolute(normalized)) return null;
      return tree.get(normalized) ?? null;
    },
  };
}

async function extract(extractor: Extractor, tree: Tree, filePath: string, context = treeContext(tree)): Promise<Component[]> {
  const text = tree.get(filePath);
  assert.ok(text !== undefined, `no ${filePath} in the tree`);
  return extractor.extract({ path: filePath, text }, context);
}

interface Summary {
  name: string;
  version: string;
  direct: boolean | null;
  development: boolean | undefined;
  sourceFile: string;
}

function summarize(components: Component[]): Summary[] {
  const rows = components.map((c) => {
    assert.equal(c.ecosystem, 'PyPI');
    return { name: c.name, version: c.version, direct: c.direct, development: c.development, sourceFile: c.sourceFile };
  });
  return sorted(rows);
}

/** Expected rows for one source file: [name, version, direct, development]. */
function rows(sourceFile: string, entries: [string, string, boolean | null, boolean | undefined][]): Summary[] {
  return entries.map(([name, version, direct, development]) => ({ name, version, direct, development, sourceFile }));
}

function sorted(summaries: Summary[]): Summary[] {
  const key = (s: Summary) => `${s.sourceFile}\0${s.name.toLowerCase()}\0${s.version}`;
  return [...summaries].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function purlOf(components: Component[], name: string, version?: string): string | undefined {
  return components.find((c) => c.name === name && (version === undefined || c.version === version))?.purl;
}

/** Rows with `direct` replaced, for a lockfile read without its manifest. */
function withDirect(summaries: Summary[], direct: boolean | null): Summary[] {
  return summaries.map((s) => ({ ...s, direct }));
}

async function assertRejected(extractor: Extractor, filePath: string, text: string, reason: RegExp): Promise<void> {
  await assert.rejects(
    async () => extractor.extract({ path: filePath, text }, treeContext(new Map([[filePath, text]]))),
    (error: unknown) => {
      assert.ok(error instanceof ExtractError, `expected an ExtractError, got ${String(error)}`);
      assert.match(error.message, new RegExp(`^${filePath.replace(/\./g, '\\.')}: `));
      assert.match(error.message, reason);
      return true;
    },
  );
}

describe('pip requirements files', () => {
  const tree = fixtureTree('requirements', '');
  const api = 'services/api';

  const rootRequirements = [
    ...rows(`${api}/requirements.txt`, [
      ['cryptography', '41.0.5', true, undefined],
      ['Django', '4.2.7', true, undefined],
      ['djangorestframework', '3.14.0', true, undefined],
      ['importlib-metadata', '6.8.0', true, undefined],
      ['requests', '2.31.0', true, undefined],
      ['typing_extensions', '4.8.0', true, undefined],
    ]),
    // `PyYAML==6.0.1` in requirements.txt repeats base.txt's `pyyaml==6.0.1`, which comes first.
    ...rows(`${api}/requirements/base.txt`, [
      ['asgiref', '3.7.2', true, undefined],
      ['pyyaml', '6.0.1', true, undefined],
      ['sqlparse', '0.4.4', true, undefined],
    ]),
    ...rows(`${api}/requirements/common.txt`, [
      ['certifi', '2023.7.22', true, undefined],
      ['urllib3', '2.0.7', true, undefined],
    ]),
  ];

  test('exact pins become components; ranges, wildcards, constraints, editables, URLs and paths do not', async () => {
    const context = treeContext(tree);
    const components = await extract(requirementsExtractor, tree, `${api}/requirements.txt`, context);
    assert.deepEqual(summarize(components), sorted(rootRequirements));
    assert.equal(purlOf(components, 'Django'), 'pkg:pypi/django@4.2.7');
    assert.equal(purlOf(components, 'typing_extensions'), 'pkg:pypi/typing-extensions@4.8.0');
    assert.equal(purlOf(components, 'requests'), 'pkg:pypi/requests@2.31.0');
    // Each include is read once although base.txt and common.txt include each other and the root;
    // the constraints file is never read.
    assert.deepEqual(context.reads, [`${api}/requirements/base.txt`, `${api}/requirements/common.txt`, `${api}/requirements/generated.txt`]);
  });

  test('a file that includes another reports the included pins under the included file', async () => {
    const components = await extract(requirementsExtractor, tree, `${api}/requirements-dev.txt`);
    const devPins = rows(`${api}/requirements-dev.txt`, [
      ['coverage', '7.3.2', true, undefined],
      ['pytest', '7.4.3', true, undefined],
      ['pytest-django', '4.7.0', true, undefined],
    ]);
    assert.deepEqual(summarize(components), sorted([...rootRequirements, ...devPins]));
  });

  test('CRLF lines, a BOM, spaced and parenthesized specifiers, attached -r forms and local versions', async () => {
    const tree: Tree = new Map([
      [
        'app/requirements.txt',
        '\uFEFFflask == 3.0.0\r\n' +
          '# a comment ending in a backslash joins nothing \\\r\n' +
          'Werkzeug (==3.0.1)\r\n' +
          'itsdangerous==2.1.2;python_version>="3.8"\r\n' +
          'torch==2.1.0+cu118 --index-url https://download.pytorch.org/whl/cu118\r\n' +
          '-rshared.txt\r\n' +
          '--requirement=sub/more.txt\r\n',
      ],
      ['app/shared.txt', 'click==8.1.7\n'],
      ['app/sub/more.txt', '-r ../shared.txt\nblinker===1.7.0\n'],
    ]);
    const components = await extract(requirementsExtractor, tree, 'app/requirements.txt');
    assert.deepEqual(
      summarize(components),
      sorted([
        ...rows('app/requirements.txt', [
          ['flask', '3.0.0', true, undefined],
          ['itsdangerous', '2.1.2', true, undefined],
          ['torch', '2.1.0+cu118', true, undefined],
          ['Werkzeug', '3.0.1', true, undefined],
        ]),
        ...rows('app/shared.txt', [['click', '8.1.7', true, undefined]]),
        ...rows('app/sub/more.txt', [['blinker', '1.7.0', true, undefined]]),
      ]),
    );
  });

  test('includes that are URLs or leave the tree are not followed', async () => {
    const tree: Tree = new Map([
      ['app/requirements.txt', '-r ../../outside.txt\n-r https://example.com/requirements.txt\n-r /etc/requirements.txt\nsix==1.16.0\n'],
    ]);
    const context = treeContext(tree);
    const components = await extract(requirementsExtractor, tree, 'app/requirements.txt', context);
    assert.deepEqual(summarize(components), rows('app/requirements.txt', [['six', '1.16.0', true, undefined]]));
    assert.deepEqual(context.reads, []);
  });

  test('a line that is neither a requirement, an option, a URL nor a path is an error', async () => {
    await assertRejected(requirementsExtractor, 'app/requirements.txt', 'flask==3.0.0\nthis is not a requirement\n', /line 2: not a requirement/);
    await assertRejected(requirementsExtractor, 'app/requirements.txt', 'requests==\n', /line 1: not a requirement/);
  });

  test('matches requirement file names only', () => {
    for (const name of ['requirements.txt', 'requirements-dev.txt', 'requirements_test.txt', 'requirements.prod.txt', 'dev-requirements.txt', 'test_requirements.txt']) {
      assert.ok(requirementsExtractor.matches(name), name);
    }
    for (const name of ['requirements.in', 'constraints.txt', 'requirements.txt.bak', 'myrequirements.txt', 'Pipfile']) {
      assert.ok(!requirementsExtractor.matches(name), name);
    }
  });
});

describe('poetry.lock', () => {
  const lockV1 = rows('services/billing-worker/poetry.lock', [
    ['attrs', '22.2.0', false, true],
    ['certifi', '2022.12.7', false, false],
    ['charset-normalizer', '3.0.1', false, false],
    ['colorama', '0.4.6', false, true],
    ['greenlet', '2.0.2', false, false],
    ['idna', '3.4', false, false],
    ['iniconfig', '2.0.0', false, true],
    ['packaging', '23.0', false, true],
    ['pluggy', '1.0.0', false, true],
    ['PySocks', '1.7.1', false, false],
    ['pytest', '7.2.1', true, true],
    ['requests', '2.28.2', true, false],
    ['SQLAlchemy', '1.4.46', true, false],
    ['tomli', '2.0.1', false, true],
    ['urllib3', '1.26.14', false, false],
  ]);

  test('lock version 1.1: development from `category`, direct from pyproject.toml', async () => {
    const tree = fixtureTree('poetry-1.1', 'services/billing-worker');
    const components = await extract(poetryLockExtractor, tree, 'services/billing-worker/poetry.lock');
    assert.deepEqual(summarize(components), lockV1);
    assert.equal(purlOf(components, 'SQLAlchemy'), 'pkg:pypi/sqlalchemy@1.4.46');
    assert.equal(purlOf(components, 'PySocks'), 'pkg:pypi/pysocks@1.7.1');
  });

  test('lock version 2.0: development follows the dependency edges from the declared groups; path projects are skipped', async () => {
    const tree = fixtureTree('poetry-2.0', 'invoice-api');
    const components = await extract(poetryLockExtractor, tree, 'invoice-api/poetry.lock');
    assert.deepEqual(
      summarize(components),
      rows('invoice-api/poetry.lock', [
        ['annotated-types', '0.6.0', false, false],
        ['anyio', '3.7.1', false, false],
        // Needed by both httpx (dev) and internal-sdk (runtime).
        ['certifi', '2023.11.17', false, false],
        ['colorama', '0.4.6', false, true],
        ['fastapi', '0.104.1', true, false],
        ['h11', '0.14.0', false, true],
        ['httpcore', '1.0.2', false, true],
        ['httpx', '0.25.2', true, true],
        ['idna', '3.6', false, false],
        ['iniconfig', '2.0.0', false, true],
        ['internal-sdk', '2.4.0', true, false],
        ['packaging', '23.2', false, true],
        ['pluggy', '1.3.0', false, true],
        ['pydantic', '2.5.2', false, false],
        ['pydantic-core', '2.14.5', false, false],
        ['pytest', '7.4.3', true, true],
        // Reached through the billing-core path dependency, which itself is not a component.
        ['python-dateutil', '2.8.2', false, false],
        ['ruff', '0.1.6', true, true],
        ['six', '1.16.0', false, false],
        ['sniffio', '1.3.0', false, false],
        ['starlette', '0.27.0', false, false],
        ['typing-extensions', '4.8.0', false, false],
      ]),
    );
  });

  const lockV21 = rows('notifier/poetry.lock', [
    ['async-timeout', '4.0.3', false, false],
    ['colorama', '0.4.6', false, true],
    ['exceptiongroup', '1.2.0', false, true],
    ['iniconfig', '2.0.0', false, true],
    ['marshmallow', '3.20.2', true, false],
    ['packaging', '23.2', false, false],
    ['pluggy', '1.4.0', false, true],
    ['proto-plus', '1.22.3', true, false],
    ['proto-plus', '1.23.0', true, false],
    ['protobuf', '4.25.3', false, false],
    ['pytest', '8.0.2', true, true],
    ['redis', '5.0.1', true, false],
    ['tomli', '2.0.1', false, true],
  ]);

  test('lock version 2.1: development from `groups`, direct from PEP 621 dependencies and extras', async () => {
    const tree = fixtureTree('poetry-2.1', 'notifier');
    const components = await extract(poetryLockExtractor, tree, 'notifier/poetry.lock');
    assert.deepEqual(summarize(components), lockV21);
    assert.equal(purlOf(components, 'proto-plus', '1.22.3'), 'pkg:pypi/proto-plus@1.22.3');
  });

  test('without pyproject.toml nothing is known to be direct, and a 2.0 lock says nothing about development', async () => {
    const v21 = fixtureTree('poetry-2.1', 'notifier');
    v21.delete('notifier/pyproject.toml');
    assert.deepEqual(summarize(await extract(poetryLockExtractor, v21, 'notifier/poetry.lock')), withDirect(lockV21, null));

    const v20 = fixtureTree('poetry-2.0', 'invoice-api');
    v20.delete('invoice-api/pyproject.toml');
    const components = await extract(poetryLockExtractor, v20, 'invoice-api/poetry.lock');
    assert.equal(components.length, 22);
    assert.ok(components.every((c) => c.direct === null && !('development' in c)));
  });

  test('a pyproject.toml that is not TOML costs only the direct flags', async () => {
    const tree = fixtureTree('poetry-1.1', 'services/billing-worker');
    tree.set('services/billing-worker/pyproject.toml', '[tool.poetry\nname = ');
    const components = await extract(poetryLockExtractor, tree, 'services/billing-worker/poetry.lock');
    assert.deepEqual(summarize(components), withDirect(lockV1, null));
  });

  test('malformed locks are errors', async () => {
    await assertRejected(poetryLockExtractor, 'poetry.lock', '[[package]\nname = "six"\n', /not valid TOML/);
    await assertRejected(poetryLockExtractor, 'poetry.lock', 'package = "six"\n', /not an array of tables/);
    await assertRejected(poetryLockExtractor, 'poetry.lock', '[[package]]\nname = "six"\n', /package 1 has no name or version/);
  });
});

describe('Pipfile.lock', () => {
  const locked = [
    ...rows('legacy/Pipfile.lock', [
      ['asgiref', '3.7.2', false, false],
      // Locked in both sections: a runtime package.
      ['certifi', '2023.11.17', false, false],
      ['charset-normalizer', '3.3.2', false, false],
      ['django', '4.2.7', true, false],
      ['idna', '3.6', false, false],
      ['iniconfig', '2.0.0', false, true],
      ['packaging', '23.2', false, true],
      ['pluggy', '1.3.0', false, true],
      ['pysocks', '1.7.1', false, false],
      ['pytest', '7.4.3', true, true],
      ['requests', '2.31.0', true, false],
      ['sqlparse', '0.4.4', false, false],
      ['urllib3', '2.1.0', false, false],
    ]),
  ];

  test('default and develop sections, direct from the Pipfile; VCS and path entries skipped', async () => {
    const tree = fixtureTree('pipenv', 'legacy');
    const components = await extract(pipfileLockExtractor, tree, 'legacy/Pipfile.lock');
    assert.deepEqual(summarize(components), locked);
    assert.equal(purlOf(components, 'django'), 'pkg:pypi/django@4.2.7');
  });

  test('without a Pipfile nothing is known to be direct', async () => {
    const tree = fixtureTree('pipenv', 'legacy');
    tree.delete('legacy/Pipfile');
    assert.deepEqual(summarize(await extract(pipfileLockExtractor, tree, 'legacy/Pipfile.lock')), withDirect(locked, null));
  });

  test('malformed locks are errors', async () => {
    await assertRejected(pipfileLockExtractor, 'Pipfile.lock', '{"default": {', /not valid JSON/);
    await assertRejected(pipfileLockExtractor, 'Pipfile.lock', '["requests"]', /not a JSON object/);
    await assertRejected(pipfileLockExtractor, 'Pipfile.lock', '{"default": ["requests==2.31.0"]}', /"default" is not an object/);
  });
});

describe('uv.lock', () => {
  test('workspace roots are skipped; their dependencies, extras and groups decide direct and development', async () => {
    const tree = fixtureTree('uv', 'inventory');
    const components = await extract(uvLockExtractor, tree, 'inventory/uv.lock');
    assert.deepEqual(
      summarize(components),
      rows('inventory/uv.lock', [
        ['annotated-types', '0.6.0', false, false],
        ['anyio', '4.2.0', false, false],
        ['colorama', '0.4.6', false, true],
        ['fastapi', '0.109.0', true, false],
        // The inventory-shared member's test group.
        ['freezegun', '1.4.0', true, true],
        ['idna', '3.6', false, false],
        ['iniconfig', '2.0.0', false, true],
        ['packaging', '23.2', false, true],
        ['pluggy', '1.4.0', false, true],
        // The postgres extra.
        ['psycopg', '3.1.17', true, false],
        ['pydantic', '2.5.3', true, false],
        ['pydantic-core', '2.14.6', false, false],
        ['pytest', '7.4.4', true, true],
        ['python-dateutil', '2.8.2', false, true],
        ['ruff', '0.1.14', true, true],
        ['six', '1.16.0', false, true],
        ['sniffio', '1.3.0', false, false],
        ['starlette', '0.35.1', false, false],
        ['structlog', '24.1.0', true, false],
        ['typing-extensions', '4.9.0', false, false],
        ['tzdata', '2023.4', false, false],
      ]),
    );
    assert.equal(purlOf(components, 'typing-extensions'), 'pkg:pypi/typing-extensions@4.9.0');
  });

  test('a virtual project root has no version and is no component', async () => {
    const lock = [
      'version = 1',
      '',
      '[[package]]',
      'name = "ops-scripts"',
      'source = { virtual = "." }',
      'dependencies = [{ name = "boto3" }]',
      '',
      '[[package]]',
      'name = "boto3"',
      'version = "1.34.20"',
      'source = { registry = "https://pypi.org/simple" }',
      '',
    ].join('\n');
    const tree: Tree = new Map([['ops/uv.lock', lock]]);
    assert.deepEqual(summarize(await extract(uvLockExtractor, tree, 'ops/uv.lock')), rows('ops/uv.lock', [['boto3', '1.34.20', true, false]]));
  });

  test('without a project root nothing is known to be direct or development', async () => {
    const lock = 'version = 1\n\n[[package]]\nname = "boto3"\nversion = "1.34.20"\nsource = { registry = "https://pypi.org/simple" }\n';
    const tree: Tree = new Map([['uv.lock', lock]]);
    assert.deepEqual(summarize(await extract(uvLockExtractor, tree, 'uv.lock')), rows('uv.lock', [['boto3', '1.34.20', null, undefined]]));
  });

  test('malformed locks are errors', async () => {
    await assertRejected(uvLockExtractor, 'uv.lock', 'version = 1\n[[package]]\nname = "six\n', /not valid TOML/);
    await assertRejected(uvLockExtractor, 'uv.lock', 'version = 1\n[[package]]\nversion = "1.16.0"\n', /package 1 has no name/);
  });
});

describe('pdm.lock', () => {
  const withGroups = rows('gateway/pdm.lock', [
    ['anyio', '4.2.0', false, false],
    ['certifi', '2024.2.2', false, false],
    ['click', '8.1.7', false, false],
    // In both the default and the test group.
    ['colorama', '0.4.6', false, false],
    ['h11', '0.14.0', false, false],
    ['httpcore', '1.0.2', false, false],
    ['httptools', '0.6.1', false, false],
    ['httpx', '0.26.0', true, false],
    ['idna', '3.6', false, false],
    ['iniconfig', '2.0.0', false, true],
    ['packaging', '23.2', false, true],
    ['pluggy', '1.4.0', false, true],
    ['pytest', '8.0.0', true, true],
    ['python-dotenv', '1.0.1', false, false],
    ['ruff', '0.2.1', true, true],
    ['sniffio', '1.3.0', false, false],
    // The socks extra: locked in its own group, but shipped at runtime.
    ['socksio', '1.0.0', true, false],
    // Locked twice, plain and with the standard extra.
    ['uvicorn', '0.27.0', true, false],
  ]);

  test('groups decide development, pyproject.toml decides direct; editable packages skipped', async () => {
    const tree = fixtureTree('pdm-groups', 'gateway');
    const components = await extract(pdmLockExtractor, tree, 'gateway/pdm.lock');
    assert.deepEqual(summarize(components), withGroups);
    assert.equal(purlOf(components, 'python-dotenv'), 'pkg:pypi/python-dotenv@1.0.1');
  });

  test('without pyproject.toml every group but default counts as development', async () => {
    const tree = fixtureTree('pdm-groups', 'gateway');
    tree.delete('gateway/pyproject.toml');
    const expected = withDirect(withGroups, null).map((s) => (s.name === 'socksio' ? { ...s, development: true } : s));
    assert.deepEqual(summarize(await extract(pdmLockExtractor, tree, 'gateway/pdm.lock')), expected);
  });

  test('a lock without groups: development follows the dependency edges from pyproject.toml', async () => {
    const tree = fixtureTree('pdm-no-groups', 'status');
    const components = await extract(pdmLockExtractor, tree, 'status/pdm.lock');
    assert.deepEqual(
      summarize(components),
      rows('status/pdm.lock', [
        ['blinker', '1.7.0', false, false],
        ['click', '8.1.7', false, false],
        ['colorama', '0.4.6', false, false],
        ['flask', '3.0.2', true, false],
        ['iniconfig', '2.0.0', false, true],
        ['itsdangerous', '2.1.2', false, false],
        ['jinja2', '3.1.3', false, false],
        ['markupsafe', '2.1.5', false, false],
        ['packaging', '23.2', false, true],
        ['pluggy', '1.4.0', false, true],
        ['pytest', '8.0.0', true, true],
        ['werkzeug', '3.0.1', false, false],
      ]),
    );
  });

  test('malformed locks are errors', async () => {
    await assertRejected(pdmLockExtractor, 'pdm.lock', '[metadata]\ngroups = ["default"\n', /not valid TOML/);
    await assertRejected(pdmLockExtractor, 'pdm.lock', '[package]\nname = "six"\n', /not an array of tables/);
  });
});

test('lockfile extractors match their own file names', () => {
  const cases: [Extractor, string][] = [
    [poetryLockExtractor, 'poetry.lock'],
    [pipfileLockExtractor, 'Pipfile.lock'],
    [uvLockExtractor, 'uv.lock'],
    [pdmLockExtractor, 'pdm.lock'],
  ];
  for (const [extractor, fileName] of cases) {
    assert.equal(extractor.ecosystem, 'PyPI');
    for (const [, other] of cases) assert.equal(extractor.matches(other), other === fileName, `${extractor.id} on ${other}`);
    assert.ok(!extractor.matches('requirements.txt'));
  }
});

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims } from '../extractor.ts';
import { fixtureTree, treeContext, extract, summarize, rows, sorted, purlOf, assertRejected, type Tree } from '../python/testing.ts';
import { requirementsExtractor } from './python-requirements.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('pip requirements files', () => {
  const tree = fixtureTree(TESTDATA, 'requirements', '');
  const api = 'services/api';

  const rootRequirements = [
    ...rows(`${api}/requirements.txt`, [
      ['cryptography', '41.0.5', true, undefined],
      ['Django', '4.2.7', true, undefined],
      ['djangorestframework', '3.14.0', true, undefined],
      ['importlib-metadata', '6.8.0', true, undefined],
      ['requests', '2.31.0', true, undefined],
      ['typing_extensions', '4.8.0', true, undefined],
      // Unpinned: listed without a version.
      ['celery', '', true, undefined],
      ['gunicorn', '', true, undefined],
      ['numpy', '', true, undefined],
      ['redis', '', true, undefined],
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

  test('exact pins become components, ranges and wildcards components without a version; constraints, editables, URLs and paths do not', async () => {
    const context = treeContext(tree);
    const components = await extract(requirementsExtractor, tree, `${api}/requirements.txt`, context);
    assert.deepEqual(summarize(components), sorted(rootRequirements));
    assert.equal(purlOf(components, 'Django'), 'pkg:pypi/django@4.2.7');
    assert.equal(purlOf(components, 'typing_extensions'), 'pkg:pypi/typing-extensions@4.8.0');
    assert.equal(purlOf(components, 'requests'), 'pkg:pypi/requests@2.31.0');
    const celery = components.find((c) => c.name === 'celery')!;
    assert.equal(celery.purl, 'pkg:pypi/celery');
    assert.match(celery.note ?? '', /^unpinned \(>=5\.3,<6\)/);
    assert.match(components.find((c) => c.name === 'gunicorn')?.note ?? '', /^unpinned \(no version\)/);
    assert.ok(components.filter((c) => c.version).every((c) => c.note === undefined));
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
      ['black', '', true, undefined],
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
      assert.ok(claims(requirementsExtractor, name), name);
    }
    for (const name of ['requirements.in', 'constraints.txt', 'requirements.txt.bak', 'myrequirements.txt', 'Pipfile']) {
      assert.ok(!claims(requirementsExtractor, name), name);
    }
  });
});

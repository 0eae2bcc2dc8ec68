import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims } from '../extractor.ts';
import { assertRejects, fixture } from '../testing.ts';
import { condaEnvironmentExtractor } from './conda-environment.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('conda environment.yml', () => {
  test('claims environment.yml and environment.yaml', () => {
    assert.ok(claims(condaEnvironmentExtractor, 'environment.yml'));
    assert.ok(claims(condaEnvironmentExtractor, 'environment.yaml'));
    assert.ok(!claims(condaEnvironmentExtractor, 'environment.json'));
  });

  test('conda packages (channel prefixes, builds) and the pip list as PyPI; ranges without a version', async () => {
    const text = fixture(TESTDATA, 'environment.yml');
    const components = await condaEnvironmentExtractor.extract({ path: 'ml/environment.yml', text }, { readFile: async () => null });
    assert.deepEqual(
      components.map((c) => [c.ecosystem, c.name, c.version, c.purl]),
      [
        ['conda', 'python', '3.11', 'pkg:conda/python@3.11'],
        ['conda', 'numpy', '1.26.4', 'pkg:conda/numpy@1.26.4'],
        ['conda', 'pandas', '2.1.4', 'pkg:conda/pandas@2.1.4'],
        ['conda', 'scikit-learn', '1.4.0', 'pkg:conda/scikit-learn@1.4.0'],
        ['conda', 'matplotlib-base', '', 'pkg:conda/matplotlib-base'],
        ['conda', 'jupyterlab', '', 'pkg:conda/jupyterlab'],
        ['conda', 'pip', '23.3.1', 'pkg:conda/pip@23.3.1'],
        ['PyPI', 'torch', '2.2.0', 'pkg:pypi/torch@2.2.0'],
        ['PyPI', 'transformers', '', 'pkg:pypi/transformers'],
        ['PyPI', 'mlflow', '2.10.2', 'pkg:pypi/mlflow@2.10.2'],
      ],
    );
    assert.ok(components.every((c) => c.direct === true && c.sourceFile === 'ml/environment.yml'));
    assert.match(components.find((c) => c.name === 'transformers')?.note ?? '', /^unpinned \(>=4\.38,<5\)/);
    assert.match(components.find((c) => c.name === 'jupyterlab')?.note ?? '', /^unpinned \(no version\)/);
  });

  test('malformed files', async () => {
    await assertRejects(condaEnvironmentExtractor, 'environment.yml', 'dependencies: [\n', /not valid YAML/);
    await assertRejects(condaEnvironmentExtractor, 'environment.yml', 'dependencies: numpy\n', /not a list/);
  });
});

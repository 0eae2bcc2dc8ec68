import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { claims } from '../extractor.ts';
import { extractorFor } from '../index.ts';
import { assertRejects, extract, fixture, summarize } from '../testing.ts';
import { githubActionsExtractor } from './github-actions.ts';

const TESTDATA = path.join(import.meta.dirname, 'testdata');

describe('GitHub Actions workflows', () => {
  test('claims workflow files by their folder and composite actions by name', () => {
    for (const name of ['.github/workflows/ci.yml', 'tools/.github/workflows/release.yaml', 'action.yml', '.github/actions/x/action.yaml']) {
      assert.ok(claims(githubActionsExtractor, name), name);
    }
    for (const name of ['ci.yml', '.github/dependabot.yml', '.github/workflows/nested/x.yml', 'docker-compose.yml']) {
      assert.ok(!claims(githubActionsExtractor, name), name);
    }
    assert.equal(extractorFor('.github/workflows/ci.yml'), githubActionsExtractor);
  });

  test('steps and reusable workflows, SHA refs kept, local actions and docker images skipped', async () => {
    const file = '.github/workflows/ci.yml';
    const components = await extract(githubActionsExtractor, file, fixture(TESTDATA, file));
    assert.deepEqual(summarize(components), [
      { name: 'acme-corp/shared-workflows', version: 'v2.3.1', direct: true },
      { name: 'actions/checkout', version: '11bd71901bbe5b1630ceea73d27597364c9af683', direct: true },
      { name: 'actions/checkout', version: 'v4', direct: true },
      { name: 'actions/setup-node', version: 'v4', direct: true },
      { name: 'codecov/codecov-action', version: 'v4.5.0', direct: true },
      // init and analyze are two paths of one repository at one ref.
      { name: 'github/codeql-action', version: 'v3', direct: true },
    ]);
    assert.equal(components.find((c) => c.name === 'actions/setup-node')?.purl, 'pkg:githubactions/actions/setup-node@v4');
  });

  test('a composite action lists the actions its steps use', async () => {
    const file = '.github/actions/report-coverage/action.yml';
    const components = await extract(githubActionsExtractor, file, fixture(TESTDATA, file));
    assert.deepEqual(summarize(components), [{ name: 'actions/github-script', version: '60a0d83039c74a4aee543508d2ffcb1c3799cdea', direct: true }]);
  });

  test('malformed files', async () => {
    await assertRejects(githubActionsExtractor, '.github/workflows/x.yml', 'jobs: [\n', /not valid YAML/);
    await assertRejects(githubActionsExtractor, '.github/workflows/x.yml', '- a\n- b\n', /not a YAML mapping/);
    assert.deepEqual(await extract(githubActionsExtractor, '.github/workflows/x.yml', ''), []);
  });
});

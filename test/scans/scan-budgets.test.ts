// Per-scan budgets (BULWARK_SCAN_MAX_*): a repository past one is scanned in part, the scan completes,
// and its warnings say what was left out. Small budgets stand for the defaults' hostile repositories.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { scanRepository } from '../support/helpers.ts';
import { createHarness, type Harness } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { positiveSample } from '../support/secret-samples.ts';

const sample = (id: string, seed: number) => positiveSample(SECRET_RULES.find((r) => r.id === id)!, seed);

describe('scan budgets', () => {
  const repos: TestRepo[] = [];
  const harnesses: Harness[] = [];
  after(async () => {
    for (const h of harnesses) await h.close();
    for (const repo of repos) repo.remove();
  });

  async function setUp(env: Record<string, string>, files: Record<string, string>) {
    const h = await createHarness({ scanning: true, env: { BULWARK_SECRETS_HISTORY_DEPTH: '0', ...env } });
    harnesses.push(h);
    const repo = TestRepo.create();
    repos.push(repo);
    repo.commit(files);
    const org = await h.org('budgets');
    const unit = await h.unit(org, ['github:acme/hostile@main'], 'hostile', [repo.url]);
    return { h, unit, repo };
  }

  const findingsOf = async (h: Harness, unitId: string) =>
    (await h.call('GET', `/api/v1/repositories/${unitId}/findings?limit=200`)).json().items as { file_path: string; severity: string }[];

  test('a lockfile over the manifest budget is skipped with a warning; the scan completes with the other files', async () => {
    const lock = { lockfileVersion: 3, packages: { '': { name: 'x' }, ...Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`node_modules/p${i}`, { version: '1.0.0' }])) } };
    const { h, unit } = await setUp({ BULWARK_SCAN_MAX_MANIFEST_BYTES: '2000' }, {
      'package-lock.json': JSON.stringify(lock, null, 2),
      'requirements.txt': 'flask==3.0.0\n',
    });
    const { batchId, progress } = await scanRepository(h, unit.id, 'sbom_scan');
    assert.equal(progress.status, 'completed');
    assert.ok(progress.warnings.includes('acme/hostile: partial result: package-lock.json: skipped, larger than 2000 bytes (BULWARK_SCAN_MAX_MANIFEST_BYTES)'), progress.warnings.join('\n'));
    const sbom = (await h.call('GET', `/api/v1/repositories/${unit.id}/scans/${batchId}/sbom`)).json();
    assert.deepEqual(sbom.components.map((c: { name: string }) => c.name), ['flask']);
  });

  test('a tree with more files than the budget: only the first files are checked out and scanned, and the scan says so', async () => {
    const files = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`conf/f${String(i).padStart(2, '0')}.env`, `STRIPE_KEY=${sample('stripe-secret-key', 300 + i)}\n`]));
    const { h, unit } = await setUp({ BULWARK_SCAN_MAX_FILES: '5' }, files);
    const { progress } = await scanRepository(h, unit.id, 'secrets_scan');
    assert.equal(progress.status, 'completed');
    assert.deepEqual(progress.warnings, [
      'acme/hostile: partial result: the commit has more than 5 files (BULWARK_SCAN_MAX_FILES), so only the first 5 in path order were checked out; findings in what was left out are not reported and none was resolved',
    ]);
    const found = await findingsOf(h, unit.id);
    assert.deepEqual(found.map((f) => f.file_path).sort(), ['conf/f00.env', 'conf/f01.env', 'conf/f02.env', 'conf/f03.env', 'conf/f04.env']);
  });

  test('a tree past the byte budget leaves out the files that do not fit', async () => {
    const { h, unit } = await setUp({ BULWARK_SCAN_MAX_BYTES: '4000' }, {
      'a.env': `STRIPE_KEY=${sample('stripe-secret-key', 400)}\n`,
      'b/big.env': `STRIPE_KEY=${sample('stripe-secret-key', 401)}\n${'# padding\n'.repeat(500)}`,
      'c.env': `STRIPE_KEY=${sample('stripe-secret-key', 402)}\n`,
    });
    const { progress } = await scanRepository(h, unit.id, 'secrets_scan');
    assert.equal(progress.status, 'completed');
    assert.deepEqual(progress.warnings, [
      'acme/hostile: partial result: 1 file was left out to keep the files scanned within 4000 bytes (BULWARK_SCAN_MAX_BYTES); findings in what was left out are not reported and none was resolved',
    ]);
    assert.deepEqual((await findingsOf(h, unit.id)).map((f) => f.file_path).sort(), ['a.env', 'c.env']);
  });

  test('findings past the budget: at most N stored, the most severe kept, and a warning', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 6; i++) files[`svc${i}.env`] = `STRIPE_KEY=${sample('stripe-secret-key', 500 + i)}\n`;
    const { h, unit, repo } = await setUp({ BULWARK_SCAN_MAX_FINDINGS: '3' }, files);
    const first = await scanRepository(h, unit.id, 'secrets_scan');
    assert.equal(first.progress.status, 'completed');
    assert.deepEqual(first.progress.warnings, [
      'acme/hostile: partial result: the scan found 6 findings and stores at most 3 (BULWARK_SCAN_MAX_FINDINGS), so the 3 least severe were dropped and no finding was resolved',
    ]);
    const stored = await findingsOf(h, unit.id);
    assert.equal(stored.length, 3);
    // A scan that stored part of what it found resolves nothing: the findings it dropped may still be there.
    repo.commit({ 'svc0.env': null, 'svc1.env': null, 'svc2.env': null });
    await scanRepository(h, unit.id, 'secrets_scan');
    const after = await findingsOf(h, unit.id);
    assert.equal(after.filter((f) => (f as { status?: string }).status === 'open').length, 3);
  });
});

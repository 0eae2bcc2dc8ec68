import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ScanBatchRow, ScanRow } from '../../src/store/schema.ts';
import { percentComplete } from '../../src/core/scan-progress.ts';

const batch = (status: ScanBatchRow['status']) => ({ status, total_repositories: 2 }) as ScanBatchRow;

const scan = (changes: Partial<ScanRow>): ScanRow =>
  ({ status: 'pending', commit_sha: null, started_at: null, assessed: 0, ...changes }) as ScanRow;

test('percent_complete never goes down through a batch whose worker dies mid-scan and is run again', () => {
  const other = scan({});
  const steps: [ScanBatchRow['status'], ScanRow[]][] = [
    ['queued', []],
    ['creating_scans', [scan({})]],
    ['scanning', [scan({}), other]],
    ['scanning', [scan({ status: 'cloning', started_at: 't1' }), other]],
    ['scanning', [scan({ status: 'scanning', started_at: 't1', commit_sha: 'c1' }), other]],
    // The worker died: the next one clones again; the scan keeps its start and its commit.
    ['scanning', [scan({ status: 'cloning', started_at: 't1', commit_sha: 'c1' }), other]],
    ['scanning', [scan({ status: 'scanning', started_at: 't1', commit_sha: 'c1' }), scan({ status: 'cloning', started_at: 't2' })]],
    ['scanning', [scan({ status: 'completed', started_at: 't1', commit_sha: 'c1' }), scan({ status: 'failed', started_at: 't2' })]],
    ['assessing', [scan({ status: 'completed', started_at: 't1', commit_sha: 'c1' }), scan({ status: 'failed', started_at: 't2' })]],
    ['assessing', [scan({ status: 'completed', started_at: 't1', commit_sha: 'c1', assessed: 1 }), scan({ status: 'failed' })]],
    ['partial_failure', []],
  ];
  const percents = steps.map(([status, scans]) => percentComplete(batch(status), scans));
  assert.deepEqual(percents, [...percents].sort((a, b) => a - b), `percent_complete went down: ${percents.join(', ')}`);
  assert.equal(percents[5], percents[4], 'cloning again after a restart keeps the progress of the checkout done before');
  assert.equal(percents.at(-1), 100);
});

test('a checked-out scan moves the bar as its engine reports progress, and stays below a finished one', () => {
  const other = scan({});
  const at = (analysis_progress: number) =>
    percentComplete(batch('scanning'), [scan({ status: 'scanning', started_at: 't1', commit_sha: 'c1', analysis_progress }), other]);
  const percents = [0, 0.25, 0.5, 1].map(at);
  assert.deepEqual(percents, [...new Set(percents)].sort((a, b) => a - b), `progress did not rise: ${percents.join(', ')}`);
  const finished = percentComplete(batch('scanning'), [scan({ status: 'completed', started_at: 't1', commit_sha: 'c1' }), other]);
  assert.ok(percents.at(-1)! < finished, 'a scan at the end of its analysis has not yet stored its findings');
});

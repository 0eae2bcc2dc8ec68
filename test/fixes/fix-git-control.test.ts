import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { newChanges, verifyRun, type FixRunnerDeps, type RunWorkspace } from '../../src/fixing/fix-runner.ts';
import { FixError } from '../../src/fixing/types.ts';
import { testTokenBox } from '../support/api.ts';
import { fixFinding } from '../support/finding-rows.ts';
import { TestRepo } from '../support/git-repo.ts';

// Whatever wrote it (a fixer, the agent), a fix whose patch changes how git or the code host treats the
// repository is refused where its diff is made, before it is sealed, shown or pushed.

describe('a fix never changes what controls git', () => {
  let repo: TestRepo;
  let base: string;
  const finding = fixFinding({ id: 'f1', filePath: 'app.py' });
  const deps = { tokenBox: testTokenBox, verify: async () => ({ stillDetected: [], unparsable: [] }) } as unknown as FixRunnerDeps;

  beforeEach(() => {
    repo = TestRepo.create();
    base = repo.commit({ 'app.py': 'TOKEN = "x"\n', 'sub/keep.txt': 'x\n', '.gitattributes': '*.py text\n' });
  });
  afterEach(() => repo.remove());

  const workspace = (): RunWorkspace => ({
    dir: repo.dir,
    base,
    options: { cwd: repo.dir, timeoutMs: 30_000, signal: new AbortController().signal },
    signal: new AbortController().signal,
    nowDoing: async () => {},
    step: async () => {},
    dispose: async () => {},
  });
  const run = () => {
    const changes = newChanges();
    changes.outcomes.set('f1', { fixed: true, detail: 'fixed', files: ['app.py'] });
    return verifyRun(deps, { runs: 1 } as never, [finding], workspace(), changes);
  };
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(repo.dir, file)), { recursive: true });
    fs.writeFileSync(path.join(repo.dir, file), text);
  };

  test('an ordinary change is kept', async () => {
    write('app.py', 'import os\nTOKEN = os.environ["TOKEN"]\n');
    const outcome = await run();
    assert.equal(outcome.status, 'completed');
  });

  for (const [what, change, pattern] of [
    ['a new .gitattributes', () => write('sub/.gitattributes', '* filter=evil\n'), /sub\/\.gitattributes, which controls how git/],
    ['a changed .gitattributes', () => write('.gitattributes', '*.py filter=evil\n'), /\.gitattributes, which controls how git/],
    ['a .gitmodules', () => write('.gitmodules', '[submodule "x"]\n\tpath = x\n\turl = ../evil\n'), /\.gitmodules/],
    ['a .lfsconfig', () => write('.lfsconfig', '[lfs]\n\turl = https://evil.example\n'), /\.lfsconfig/],
    ['a symbolic link', () => fs.symlinkSync('/etc/passwd', path.join(repo.dir, 'passwd')), /passwd, a symbolic link or submodule/],
    ['a file turned into a symbolic link', () => (fs.rmSync(path.join(repo.dir, 'sub/keep.txt')), fs.symlinkSync('../app.py', path.join(repo.dir, 'sub/keep.txt'))), /sub\/keep\.txt, a symbolic link/],
  ] as const) {
    test(`${what} fails the fix with the reason`, async () => {
      write('app.py', 'import os\nTOKEN = os.environ["TOKEN"]\n');
      change();
      await assert.rejects(run(), (error: unknown) => error instanceof FixError && pattern.test(error.message));
    });
  }
});

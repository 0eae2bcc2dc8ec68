import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { maskDiff } from '../../src/fixing/diff-mask.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { TestRepo } from '../support/git-repo.ts';
import { positiveSample } from '../support/secret-samples.ts';

// The diff the API serves masks every credential, and still applies with plain `git apply` to the
// source commit when the fix itself does not change a credential line: no hunk leans on one as context.

const rule = (id: string) => SECRET_RULES.find((r) => r.id === id)!;
const TOKEN = positiveSample(rule('github-pat'), 5);
const OTHER = positiveSample(rule('github-pat'), 6);
const PEM = positiveSample(SECRET_RULES.find((r) => /PRIVATE KEY/.test(r.sample))!, 7);

const repos: TestRepo[] = [];
after(() => repos.forEach((r) => r.remove()));

/** The served diff of changing `before` into `after` (file `app/settings.py`), and whether it applies to the source commit. */
function serve(before: string, afterText: string): { served: string; applies: boolean; error: string } {
  const repo = TestRepo.create();
  repos.push(repo);
  repo.commit({ 'app/settings.py': before });
  fs.writeFileSync(path.join(repo.dir, 'app/settings.py'), afterText);
  const served = maskDiff(repo.git('diff', '--no-color'));
  repo.git('checkout', '--quiet', '--', '.');
  const patch = path.join(repo.dir, '..', `${path.basename(repo.dir)}.patch`);
  fs.writeFileSync(patch, served);
  try {
    const apply = (...args: string[]) => execFileSync('git', ['apply', ...args, patch], { cwd: repo.dir, stdio: 'pipe' });
    apply('--check');
    apply();
    assert.equal(fs.readFileSync(path.join(repo.dir, 'app/settings.py'), 'utf8'), afterText, 'the served diff makes the same change');
    return { served, applies: true, error: '' };
  } catch (error) {
    return { served, applies: false, error: String((error as { stderr?: string }).stderr ?? error) };
  } finally {
    fs.rmSync(patch, { force: true });
  }
}

const lines = (...l: string[]) => `${l.join('\n')}\n`;

describe('served fix diffs', () => {
  test('a change below a committed key applies, the key left out of the hunk', () => {
    const before = lines('import os', '', `GITHUB_TOKEN = "${TOKEN}"`, 'DEBUG = True', 'ALLOWED_HOSTS = ["*"]', 'TIME_ZONE = "UTC"', 'USE_TZ = True');
    const { served, applies, error } = serve(before, before.replace('DEBUG = True', 'DEBUG = False'));
    assert.ok(applies, `${error}\n${served}`);
    assert.ok(!served.includes(TOKEN));
    assert.match(served, /^@@ -4,4 \+4,4 @@/m, 'leading context starts after the key; trailing context is whole');
  });

  test('a change above a committed key keeps the context on its other side', () => {
    const before = lines('import os', 'NAME = "app"', 'VERSION = 2', 'DEBUG = True', 'ALLOWED_HOSTS = ["*"]', `GITHUB_TOKEN = "${TOKEN}"`, 'TIME_ZONE = "UTC"');
    const { served, applies, error } = serve(before, before.replace('DEBUG = True', 'DEBUG = False'));
    assert.ok(applies, `${error}\n${served}`);
    assert.ok(!served.includes(TOKEN));
    assert.match(served, /^@@ -1,5 \+1,5 @@/m);
  });

  test('two changes around a committed key become two hunks', () => {
    const before = lines('A = 1', 'DEBUG = True', 'B = 2', `GITHUB_TOKEN = "${TOKEN}"`, 'C = 3', 'SESSION_COOKIE_SECURE = False', 'D = 4');
    const afterText = before.replace('DEBUG = True', 'DEBUG = False').replace('SECURE = False', 'SECURE = True');
    const { served, applies, error } = serve(before, afterText);
    assert.ok(applies, `${error}\n${served}`);
    assert.ok(!served.includes(TOKEN));
    assert.equal(served.match(/^@@ /gm)?.length, 2, served);
  });

  test('a key of many lines in the context is left out, line by line', () => {
    const before = lines('import os', `KEY = """${PEM}"""`, 'DEBUG = True', 'PORT = 80', 'HOST = "x"', 'USER = "y"');
    const { served, applies, error } = serve(before, before.replace('DEBUG = True', 'DEBUG = False'));
    assert.ok(applies, `${error}\n${served}`);
    for (const line of PEM.split('\n').filter((l) => l.length > 12 && !/BEGIN|END/.test(l))) assert.ok(!served.includes(line));
  });

  test('a change at the end of a file right after a key applies', () => {
    const before = lines('import os', 'A = 1', `GITHUB_TOKEN = "${TOKEN}"`, 'DEBUG = True');
    const { served, applies, error } = serve(before, before.replace('DEBUG = True', 'DEBUG = False'));
    assert.ok(applies, `${error}\n${served}`);
    assert.ok(!served.includes(TOKEN));
  });

  test('a change that removes a key still masks it, on both sides', () => {
    const before = lines('import os', 'A = 1', `GITHUB_TOKEN = "${TOKEN}"`, `OTHER = "${OTHER}"`, 'DEBUG = True', 'B = 2');
    const afterText = before.replace(`GITHUB_TOKEN = "${TOKEN}"`, 'GITHUB_TOKEN = os.environ["GITHUB_TOKEN"]');
    const { served } = serve(before, afterText);
    assert.ok(!served.includes(TOKEN));
    assert.ok(!served.includes(OTHER));
    assert.match(served, /^-GITHUB_TOKEN = "ghp_\*+/m);
    assert.match(served, /^\+GITHUB_TOKEN = os\.environ\["GITHUB_TOKEN"\]$/m);
  });

  test('a diff without credentials is served as it is', () => {
    const diff = lines('diff --git a/x.py b/x.py', '--- a/x.py', '+++ b/x.py', '@@ -1,2 +1,2 @@', ' a = 1', '-b = 2', '+b = 3');
    assert.equal(maskDiff(diff), diff);
  });
});

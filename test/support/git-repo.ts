import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A real git repository in a temporary folder, changed through ordinary commits. */
export class TestRepo {
  readonly dir: string;

  private constructor(dir: string) {
    this.dir = dir;
  }

  static create(branch = 'main'): TestRepo {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-repo-'));
    const repo = new TestRepo(dir);
    repo.git('init', '--quiet', '--initial-branch', branch);
    repo.git('config', 'user.email', 'dev@example.test');
    repo.git('config', 'user.name', 'Dev');
    repo.git('config', 'commit.gpgsign', 'false');
    return repo;
  }

  git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.dir, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  }

  /** Writes (or with `null`, deletes) files and commits the change. */
  commit(files: Record<string, string | null>, message = 'change'): string {
    for (const [name, content] of Object.entries(files)) {
      const file = path.join(this.dir, name);
      if (content === null) {
        fs.rmSync(file, { force: true });
      } else {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, content);
      }
    }
    this.git('add', '--all');
    this.git('commit', '--quiet', '--allow-empty', '-m', message);
    return this.git('rev-parse', 'HEAD').trim();
  }

  get url(): string {
    return `file://${this.dir}`;
  }

  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

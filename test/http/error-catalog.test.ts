import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ApiError, ERROR_CATALOG, errors } from '../../src/core/errors.ts';

// Every error the API answers with (besides 422) comes from the catalog in src/core/errors.ts, and the
// README documents each one.

const ROOT = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('the error catalog', () => {
  test('gives each code one status', () => {
    const codes = ERROR_CATALOG.map((kind) => kind.code);
    assert.equal(new Set(codes).size, codes.length, `a code is defined twice: ${codes.join(', ')}`);
    for (const kind of ERROR_CATALOG) {
      assert.match(kind.code, /^[A-Z][A-Z_]+$/);
      assert.ok(kind.statusCode >= 400 && kind.statusCode < 600, `${kind.code}: ${kind.statusCode}`);
    }
  });

  test('makes errors that carry their code, status, message and extra fields', () => {
    const quota = errors.quotaExhausted('prs', '2026-12-01T00:00:00Z');
    assert.ok(quota instanceof ApiError);
    assert.deepEqual(
      { status: quota.statusCode, code: quota.errorCode, message: quota.message, extra: quota.extra },
      {
        status: 403,
        code: 'OPERATION_FAILED',
        message: 'Quota exhausted: no prs credits remain in the current period',
        extra: { quota_type: 'prs', period_end: '2026-12-01T00:00:00Z' },
      },
    );
    const missing = errors.notFound('Fix');
    assert.deepEqual([missing.statusCode, missing.errorCode, missing.message, missing.extra], [404, 'NOT_FOUND', 'Fix not found', {}]);
  });

  test('is the only place that names an error code or builds an ApiError', () => {
    const offenders: string[] = [];
    const catalog = path.join(ROOT, 'src/core/errors.ts');
    for (const file of sourceFiles(path.join(ROOT, 'src'))) {
      if (file === catalog) continue;
      const text = fs.readFileSync(file, 'utf8');
      if (/new ApiError\(/.test(text)) offenders.push(`${path.relative(ROOT, file)}: new ApiError(`);
      for (const { code } of ERROR_CATALOG) {
        if (new RegExp(`['"\`]${code}['"\`]`).test(text)) offenders.push(`${path.relative(ROOT, file)}: '${code}'`);
      }
    }
    assert.deepEqual(offenders, []);
  });

  test('is documented in the README, status and code', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Errors'), readme.indexOf('\n#', readme.indexOf('### Errors') + 1));
    const undocumented = ERROR_CATALOG.filter((kind) => !section.includes(`| ${kind.statusCode} | \`${kind.code}\` |`)).map((k) => k.code);
    assert.deepEqual(undocumented, []);
  });
});

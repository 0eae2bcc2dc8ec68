import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { scanRepository } from '../support/helpers.ts';
import { createHarness, type Harness } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { positiveSample } from '../support/secret-samples.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { wellFormedText } from '../../src/store/well-formed-text.ts';

// Text PostgreSQL refuses (a NUL, a lone surrogate) reaches the database from scanned files; it is stored
// with U+FFFD in its place, and the scan's findings are all kept, on both databases.

const token = positiveSample(SECRET_RULES.find((r) => r.id === 'github-pat')!, 3);
/** Past the first 8 KB a binary check reads, so the file is scanned as text. */
const PADDING = '# padding line of an ordinary source file\n'.repeat(300);

const APP = [
  'import os',
  'from flask import Flask, request',
  'app = Flask(__name__)',
  PADDING,
  `GITHUB_TOKEN = "${token}"  # \0 after the token`,
  '',
  '@app.route("/lookup")',
  'def lookup():',
  '    return os.popen("nslookup " + request.args["host"]).read()  # \0',
  '',
].join('\n');

describe('text a database refuses, from a scanned repository', () => {
  let h: Harness;
  let repo: TestRepo;
  let unitId: string;

  before(async () => {
    h = await createHarness({ scanning: true });
    const org = await h.org('nul');
    repo = TestRepo.create();
    repo.commit({ 'app.py': APP, 'odd\u0001name/config.py': `${PADDING}TOKEN = "${token}"  # \0\n` });
    unitId = (await h.unit(org, ['github:acme/nul@main'], 'nul', [repo.url])).id;
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  const findings = async (scanType: string) =>
    (await h.call('GET', `/api/v1/repositories/${unitId}/findings?scan_type=${scanType}&limit=200`)).json().items as { file_path: string; snippet: string | null; start_line: number }[];

  for (const scanType of ['secrets_scan', 'semgrep_scan']) {
    test(`${scanType}: a NUL on a flagged line past 8 KB fails nothing; the findings are stored with U+FFFD for it`, async () => {
      const { progress } = await scanRepository(h, unitId, scanType);
      assert.equal(progress.status, 'completed', JSON.stringify(progress));
      const stored = await findings(scanType);
      assert.ok(stored.some((f) => f.file_path === 'app.py' && f.start_line > 300), JSON.stringify(stored));
      if (scanType === 'secrets_scan') assert.ok(stored.some((f) => f.file_path === 'odd\u0001name/config.py'), JSON.stringify(stored.map((f) => f.file_path)));
      for (const f of stored) assert.ok(!JSON.stringify(f).includes('\\u0000'), JSON.stringify(f));
      assert.ok(stored.some((f) => f.snippet?.includes('\uFFFD')), 'the NUL is stored as U+FFFD');
    });
  }

  test('any text written goes through the same replacement: NUL and lone surrogates become U+FFFD, everything else is kept', async () => {
    assert.equal(wellFormedText('a\0b\uD800c\uDC00d😀'), 'a\uFFFDb\uFFFDc\uFFFDd😀');
    await h.database.store.db.updateTable('units').set({ name: 'nul\0name\uD800' }).where('id', '=', unitId).execute();
    const unit = await h.call('GET', `/api/v1/repositories/${unitId}`);
    assert.equal(unit.json().name, 'nul\uFFFDname\uFFFD');
  });
});

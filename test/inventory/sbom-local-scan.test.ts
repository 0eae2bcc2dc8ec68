import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as CDX from '@cyclonedx/cyclonedx-library';
import { osvRecord, writeRecordDir } from '../support/osv-records.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** A monorepo with a Go service and a Rust tool, one of each carrying a known-vulnerable pin. */
const TREE: Record<string, string> = {
  'services/api/go.mod': 'module example.test/api\n\ngo 1.22\n\nrequire (\n\tgithub.com/gin-gonic/gin v1.9.0\n\tgolang.org/x/text v0.3.7 // indirect\n)\n',
  'tools/cli/Cargo.lock':
    'version = 3\n\n[[package]]\nname = "cli"\nversion = "0.1.0"\ndependencies = [\n "smallvec",\n]\n\n' +
    '[[package]]\nname = "smallvec"\nversion = "1.6.0"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n',
  'vendor/github.com/x/y/go.mod': 'module github.com/x/y\n\nrequire github.com/evil/dep v0.0.1\n',
};

describe('bulwark scan --type sbom', () => {
  let work: string;
  let dataDir: string;
  const run = (args: string[], data = dataDir) =>
    spawnSync(process.execPath, [CLI, ...args], {
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: undefined, BULWARK_ENCRYPTION_KEY: undefined, BULWARK_DATA_DIR: data },
    });

  before(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-sbom-cli-'));
    dataDir = path.join(work, 'data');
    for (const [file, text] of Object.entries(TREE)) {
      fs.mkdirSync(path.dirname(path.join(work, 'repo', file)), { recursive: true });
      fs.writeFileSync(path.join(work, 'repo', file), text);
    }
  });
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  test('without vulnerability records it still writes a valid SBOM and says why nothing matched', async () => {
    // A data folder of its own: the import test may already have filled the shared one.
    const result = run(['scan', path.join(work, 'repo'), '--type', 'sbom', '--format', 'cyclonedx'], path.join(work, 'no-records'));
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /warning: no vulnerability records are available, so no dependency was checked for known vulnerabilities: run "bulwark osv sync"/);
    assert.equal(await new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot6).validate(result.stdout), null);
    const sbom = JSON.parse(result.stdout);
    assert.deepEqual(
      sbom.components.map((c: any) => [c.purl, c.properties.find((p: any) => p.name === 'bulwark:source_file').value]).sort(),
      [
        // The crate of the repository itself, listed as first-party.
        ['pkg:cargo/cli@0.1.0', 'tools/cli/Cargo.lock'],
        ['pkg:cargo/smallvec@1.6.0', 'tools/cli/Cargo.lock'],
        ['pkg:golang/github.com/gin-gonic/gin@v1.9.0', 'services/api/go.mod'],
        ['pkg:golang/golang.org/x/text@v0.3.7', 'services/api/go.mod'],
      ],
    );
    assert.equal(sbom.metadata.component.name, 'repo');
  });

  test('ecosystems OSV publishes nothing for, and first-party packages, raise no missing-records warning', () => {
    const repo = path.join(work, 'native-repo');
    const files: Record<string, string> = {
      'vcpkg.json': JSON.stringify({ name: 'tool', dependencies: ['fmt'], overrides: [{ name: 'fmt', version: '10.1.1' }] }),
      'environment.yml': 'name: env\ndependencies:\n  - numpy=1.26.4=py311h64a7726_0\n',
      'Cargo.lock': 'version = 3\n\n[[package]]\nname = "native-tool"\nversion = "0.1.0"\n',
    };
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
      fs.writeFileSync(path.join(repo, file), text);
    }
    const result = run(['scan', repo, '--type', 'sbom', '--format', 'json'], path.join(work, 'no-records-native'));
    assert.equal(result.status, 0, result.stderr);
    assert.doesNotMatch(result.stderr, /warning/, 'nothing here could have been matched, so nothing went unchecked');
  });

  test('after an import, dependency findings come out in every report format and --fail-on applies', () => {
    const records = path.join(work, 'osv');
    writeRecordDir(records, [
      osvRecord('GO-2099-0001', 'Go', 'github.com/gin-gonic/gin', [{ introduced: '0' }, { fixed: '1.9.1' }], {
        aliases: ['GHSA-2099-ginx-dddd'],
        severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' }],
      }),
      osvRecord('RUSTSEC-2099-0001', 'crates.io', 'smallvec', [{ introduced: '1.6.0' }, { fixed: '1.6.1' }], { database_specific: { severity: 'LOW' } }),
    ]);
    const imported = run(['osv', 'import', records, '--json']);
    assert.equal(imported.status, 0, imported.stderr);

    const json = run(['scan', path.join(work, 'repo'), '--type', 'sbom_scan', '--format', 'json']);
    assert.equal(json.status, 0, json.stderr);
    const findings = JSON.parse(json.stdout).findings;
    assert.deepEqual(
      findings.map((f: any) => [f.check_id, f.file_path, f.start_line, f.severity, f.metadata.fixed_version]).sort(),
      [
        ['GHSA-2099-ginx-dddd', 'services/api/go.mod', 6, 'high', 'v1.9.1'],
        ['RUSTSEC-2099-0001', 'tools/cli/Cargo.lock', 11, 'low', '1.6.1'],
      ],
    );

    const sarif = run(['scan', path.join(work, 'repo'), '--type', 'sbom', '--format', 'sarif', '--fail-on', 'high']);
    assert.equal(sarif.status, 1, 'a high finding fails the run at --fail-on high');
    assert.deepEqual(JSON.parse(sarif.stdout).runs[0].results.map((r: any) => r.ruleId).sort(), ['GHSA-2099-ginx-dddd', 'RUSTSEC-2099-0001']);
  });
});

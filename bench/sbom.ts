// Dependency scanning (`sbom_scan`) at scale: how long a full OSV ecosystem export takes to import and
// how much memory that needs, then how long inventory, SBOM and matching take on a large monorepo.
//
//   npm run bench:sbom [-- --records 40000 --projects 300 --seed 1 --osv PATH --keep]
//
// Nothing is downloaded. The export is generated in the layout of OSV's per-ecosystem all.zip (one JSON
// record per entry; records shaped like GHSA ones: aliases, CVSS v3, CWE ids, several ranges), unless
// --osv names a real export (a directory of OSV JSON or an all.zip from
// https://osv-vulnerabilities.storage.googleapis.com/<ecosystem>/all.zip). The monorepo holds npm, PyPI,
// Go and Cargo projects whose packages overlap the generated advisories. Import and scan each run in a
// child process on an SQLite database of their own (or PostgreSQL with DATABASE_URL), so each peak RSS
// is that phase's own. Figures are printed, never asserted.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import yazl from 'yazl';
import { SbomEngine } from '../src/scanning/sbom/sbom-engine.ts';
import { storedAdvisories } from '../src/osv/advisories.ts';
import { importOsv } from '../src/osv/import.ts';
import type { OsvRecord } from '../src/osv/record.ts';
import { buildInventory } from '../src/inventory/inventory.ts';
import { openStore } from '../src/store/database.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { seededRandom } from '../test/support/secret-samples.ts';

const MiB = 1024 * 1024;

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '40000' },
    projects: { type: 'string', default: '300' },
    seed: { type: 'string', default: '1' },
    osv: { type: 'string' },
    keep: { type: 'boolean', default: false },
    phase: { type: 'string' },
    work: { type: 'string' },
  },
});

const ECOSYSTEMS = ['npm', 'PyPI', 'Go', 'crates.io'] as const;
type BenchEcosystem = (typeof ECOSYSTEMS)[number];

/** Package names shared by the advisories and the monorepo, so matching has real work to do. */
function packageName(ecosystem: BenchEcosystem, n: number): string {
  switch (ecosystem) {
    case 'npm':
      return n % 5 === 0 ? `@scope${n % 37}/pkg-${n}` : `pkg-${n}`;
    case 'PyPI':
      return `py_dist.${n}`;
    case 'Go':
      return `github.com/org${n % 53}/mod${n}`;
    case 'crates.io':
      return `crate-${n}`;
  }
}

const POOL = 6000;

function version(random: () => number): [number, number, number] {
  return [Math.floor(random() * 5), Math.floor(random() * 20), Math.floor(random() * 30)];
}

function advisory(i: number, random: () => number): OsvRecord {
  const ecosystem = ECOSYSTEMS[i % ECOSYSTEMS.length]!;
  const name = packageName(ecosystem, Math.floor(random() * POOL));
  const [major, minor] = version(random);
  const events = [
    { introduced: ecosystem === 'Go' ? '0' : `${major}.0.0` },
    { fixed: `${major}.${minor}.${Math.floor(random() * 10)}` },
    { introduced: `${major + 1}.0.0` },
    { fixed: `${major + 1}.${minor}.1` },
  ];
  return {
    id: `GHSA-bnch-${i.toString(36).padStart(4, '0')}-${(i * 7919).toString(36).slice(-4).padStart(4, '0')}`,
    modified: '2099-01-01T00:00:00Z',
    published: '2099-01-01T00:00:00Z',
    aliases: [`CVE-2099-${100000 + i}`],
    summary: `Generated advisory ${i} for ${name}`,
    details: 'x'.repeat(400 + Math.floor(random() * 2000)),
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:L/A:N' }],
    affected: [{ package: { ecosystem, name }, ranges: [{ type: 'ECOSYSTEM', events }], database_specific: { source: 'generated' } }],
    references: [{ type: 'ADVISORY', url: `https://example.test/advisories/${i}` }],
    database_specific: { cwe_ids: [`CWE-${20 + (i % 900)}`], severity: 'MODERATE' },
  };
}

async function writeExport(file: string, count: number, seed: number): Promise<void> {
  const random = seededRandom(seed);
  const zip = new yazl.ZipFile();
  const done = new Promise<void>((resolve, reject) => zip.outputStream.pipe(fs.createWriteStream(file)).on('close', resolve).on('error', reject));
  for (let i = 0; i < count; i++) {
    const record = advisory(i, random);
    zip.addBuffer(Buffer.from(JSON.stringify(record)), `${record.id}.json`);
  }
  zip.end();
  await done;
}

function writeMonorepo(dir: string, projects: number, seed: number): void {
  const random = seededRandom(seed + 1);
  const pick = (ecosystem: BenchEcosystem, count: number) =>
    [...new Set(Array.from({ length: count }, () => Math.floor(random() * POOL)))].map((n) => [packageName(ecosystem, n), version(random).join('.')] as const);
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };
  for (let p = 0; p < projects; p++) {
    const kind = ECOSYSTEMS[p % ECOSYSTEMS.length]!;
    if (kind === 'npm') {
      const deps = pick('npm', 900);
      const packages: Record<string, unknown> = { '': { name: `app-${p}`, version: '1.0.0', dependencies: Object.fromEntries(deps.slice(0, 40).map(([n, v]) => [n, `^${v}`])) } };
      for (const [name, v] of deps) packages[`node_modules/${name}`] = { version: v, resolved: `https://registry.npmjs.org/${name}/-/x-${v}.tgz`, integrity: 'sha512-AAAA' };
      write(`apps/app-${p}/package-lock.json`, JSON.stringify({ name: `app-${p}`, lockfileVersion: 3, requires: true, packages }, null, 2));
    } else if (kind === 'PyPI') {
      write(`services/svc-${p}/requirements.txt`, pick('PyPI', 250).map(([n, v]) => `${n}==${v}`).join('\n') + '\n');
    } else if (kind === 'Go') {
      write(`go/mod-${p}/go.mod`, `module example.test/mod${p}\n\ngo 1.22\n\nrequire (\n${pick('Go', 150).map(([n, v]) => `\t${n} v${v}`).join('\n')}\n)\n`);
    } else {
      const crates = pick('crates.io', 300);
      write(
        `rust/crate-${p}/Cargo.lock`,
        `version = 3\n\n[[package]]\nname = "root-${p}"\nversion = "0.1.0"\ndependencies = [\n${crates.slice(0, 20).map(([n]) => ` "${n}",`).join('\n')}\n]\n\n` +
          crates.map(([n, v]) => `[[package]]\nname = "${n}"\nversion = "${v}"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n`).join('\n'),
      );
    }
  }
  // Vendored copies are walked past, as in a real checkout.
  write('apps/app-0/node_modules/dep/package-lock.json', '{"lockfileVersion":3,"packages":{}}');
}

function storeSettings(work: string) {
  return { databaseUrl: process.env.DATABASE_URL || null, dataDir: path.join(work, 'data') };
}

const peakRssMiB = () => process.resourceUsage().maxRSS / 1024;

/** Runs in a child process: imports the export and reports timings and its own peak RSS. */
async function importPhase(work: string, source: string) {
  const store = openStore(storeSettings(work));
  await migrateToLatest(store);
  const started = performance.now();
  const report = await importOsv(store.db, source);
  const seconds = (performance.now() - started) / 1000;
  const again = performance.now();
  const second = await importOsv(store.db, source);
  const reimportSeconds = (performance.now() - again) / 1000;
  await store.close();
  return { ...report, errors: report.errors.length, seconds, reimportSeconds, reimportUnchanged: second.unchanged, peakRssMiB: peakRssMiB() };
}

/** Runs in a child process: inventory alone, then the whole engine (inventory, SBOM, matching). */
async function scanPhase(work: string) {
  const store = openStore(storeSettings(work));
  const repo = path.join(work, 'monorepo');
  let started = performance.now();
  const inventory = await buildInventory(repo);
  const inventorySeconds = (performance.now() - started) / 1000;
  let sbomBytes = 0;
  started = performance.now();
  const findings = await new SbomEngine(storedAdvisories(store.db)).scan({
    dir: repo,
    fingerprintKey: Buffer.alloc(32),
    onArtifact: (artifact) => (sbomBytes = artifact.content.length),
  });
  const engineSeconds = (performance.now() - started) / 1000;
  await store.close();
  return {
    manifests: inventory.manifests.length,
    components: inventory.components.length,
    inventorySeconds,
    engineSeconds,
    sbomMiB: sbomBytes / MiB,
    findings: findings.length,
    peakRssMiB: peakRssMiB(),
  };
}

/** The import runs under a small heap cap, so finishing at all shows its memory does not grow with the export. */
const IMPORT_HEAP_MIB = 96;

function runPhase(phase: string, work: string, extra: string[] = []) {
  const heap = phase === 'import' ? [`--max-old-space-size=${IMPORT_HEAP_MIB}`] : [];
  const child = spawnSync(process.execPath, [...heap, import.meta.filename, '--phase', phase, '--work', work, ...extra], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (child.status !== 0) throw new Error(`${phase} phase failed`);
  return JSON.parse(child.stdout);
}

async function main() {
  if (values.phase === 'import') return console.log(JSON.stringify(await importPhase(values.work!, values.osv!)));
  if (values.phase === 'scan') return console.log(JSON.stringify(await scanPhase(values.work!)));

  const records = Number(values.records);
  const projects = Number(values.projects);
  const seed = Number(values.seed);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-bench-sbom-'));
  try {
    const source = values.osv ? path.resolve(values.osv) : path.join(work, 'all.zip');
    let started = performance.now();
    if (!values.osv) await writeExport(source, records, seed);
    writeMonorepo(path.join(work, 'monorepo'), projects, seed);
    const exportMiB = fs.statSync(source).isFile() ? fs.statSync(source).size / MiB : NaN;
    console.log(`fixtures written in ${((performance.now() - started) / 1000).toFixed(1)}s under ${work}`);
    console.log(`database: ${process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'SQLite'}\n`);

    const imported = runPhase('import', work, ['--osv', source]);
    console.log(`OSV import of ${values.osv ? source : `a generated all.zip`} (${exportMiB.toFixed(1)} MiB)`);
    console.log(`  records read        ${imported.read}  (added ${imported.added}, skipped ${imported.skipped}, invalid ${imported.invalid})`);
    console.log(`  import              ${imported.seconds.toFixed(2)} s  (${Math.round(imported.read / imported.seconds)} records/s)`);
    console.log(`  re-import           ${imported.reimportSeconds.toFixed(2)} s  (${imported.reimportUnchanged} unchanged)`);
    console.log(`  peak RSS            ${imported.peakRssMiB.toFixed(0)} MiB  (JavaScript heap capped at ${IMPORT_HEAP_MIB} MiB)`);

    started = performance.now();
    const scanned = runPhase('scan', work);
    console.log(`\nsbom_scan of a generated monorepo (${projects} projects)`);
    console.log(`  manifests           ${scanned.manifests}`);
    console.log(`  components          ${scanned.components}`);
    console.log(`  inventory           ${scanned.inventorySeconds.toFixed(2)} s  (${Math.round(scanned.components / scanned.inventorySeconds)} components/s)`);
    console.log(`  inventory+SBOM+match ${scanned.engineSeconds.toFixed(2)} s`);
    console.log(`  SBOM                ${scanned.sbomMiB.toFixed(1)} MiB`);
    console.log(`  findings            ${scanned.findings}`);
    console.log(`  peak RSS            ${scanned.peakRssMiB.toFixed(0)} MiB`);
  } finally {
    if (values.keep) console.log(`\nkept ${work}`);
    else fs.rmSync(work, { recursive: true, force: true });
  }
}

await main();

// Fix benchmark: scans local checkouts of deliberately vulnerable applications (the RealVuln repositories
// by default) through the real service, asks for one fix per open finding through the API (no LLM agent,
// so only the deterministic fixers and codemods run), and checks each completed fix on its own:
//   completed   the fix ended `completed` (the service's own verification passed)
//   masked      the diff the API serves masks a credential, so it differs from the one a pull request pushes
//   applies     the diff a pull request of the fix pushes applies with `git apply` to the scanned commit
//   parses      every file it changes parses (no more syntax errors than before)
//   gone        the finding's rule no longer reports it in the patched tree (the rescan of verify.ts)
//   new         findings of any rule in the changed files that were not there before
//   overlap    the fix was refused when asked for (409 FIX_OVERLAPS): another live fix of the repository
//              already changes its lines, package or secret value
//   along      an earlier fix of the repository took the finding in with the one it was asked for (the
//              same change fixes it: the other credentials of a file, say), so none is asked for apart; it
//              counts as verified when that fix's patched tree verifies for it too
//   review      a reviewer's reading (fix-review.ts): each changed Python module parses under the Python the
//               application declares, uses no standard-library name that version lacks, and reads no credential
//               in a way that fails open (a missing value flowing into a key or a comparison)
// "verified" is completed ∧ applies ∧ parses ∧ gone ∧ no new finding, of its own fix or of the fix it came along with. Figures are printed per rule and
// per scan type, never asserted.
//
// Then, per repository, the completed fixes are applied together to the scanned commit (each fix is made
// from it) as their pull requests merge (`git apply --3way`): every order of a set of up to 4, every pair
// sharing a file in both orders for a larger set, and the whole set in the order the fixes completed. The
// conflicts (a diff that does not merge after another) are counted and printed, and so are the pairs that
// plain `git apply` in sequence refuses (its three lines of context must match exactly). So is whether each served (masked) diff applies on its own with plain
// `git apply`, among the fixes whose own change neither removes nor adds a credential line.
//
// Which diff is checked: the API serves a fix's diff with every credential masked (on both sides), so a
// diff that removes a committed secret cannot apply as served; that masking is deliberate and stays. What
// reaches the repository is the applicable diff the fix keeps sealed, which the pull-request opener
// unseals and commits; the bench checks that one (unsealed with the harness's key), because it is what a
// reviewer merges. Where the two differ, the masked column counts it; such a diff is the served one with
// the credentials masked, nothing else.
//
// The checkouts are local folders, one per repository (`--repos DIR`, default $BULWARK_REALVULN_DIR or
// ../.bench-cache/realvuln; see ../shared/bench/realvuln/dev-repos.json for where each comes from and at
// which commit). Each is copied into a temporary git repository, so the checkouts stay untouched and no
// code of theirs enters this project.
//
// Dependency findings need advisories: `--osv PATH` imports an OSV export (a directory of OSV JSON records
// or all.zip, as `bulwark osv import` reads) into the bench's database first; without it an sbom_scan
// finds nothing. Dependency fixes ask the package registries (BULWARK_PYPI_URL, BULWARK_NPM_REGISTRY_URL
// are passed on when set); where a registry cannot be reached, the fixer refuses, and the reason is
// counted under "why fixes failed".
//
//   npm run bench:fixes -- [--repos DIR] [--only a,b] [--types semgrep_scan,secrets_scan,sbom_scan]
//                          [--rules PREFIX,…] [--max-per-repo N] [--osv PATH] [--verbose] [--diffs DIR]
//
// --diffs DIR writes each completed fix's diff, what it says it changed and its notes above it, to DIR/<repository>/<rule>--<file>-<line>.diff,
// for reading the fixes as the application's maintainer would.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadRuleSet } from '../src/scanning/sast/rule-set.ts';
import { analyzeSource } from '../src/scanning/sast/sast-engine.ts';
import { toFixFinding } from '../src/fixing/fix-finding.ts';
import { fixReport } from '../src/core/fixes.ts';
import { codeParserFor, parseCode, syntaxErrors } from '../src/fixing/fixers/shared/syntax.ts';
import { verifyFix } from '../src/fixing/verify.ts';
import { maskSecretsIn } from '../src/scanning/secrets/mask-text.ts';
import { importOsv } from '../src/osv/import.ts';
import { parserFor } from '../src/languages/index.ts';
import { createHarness, testTokenBox } from '../test/support/api.ts';
import { FixReviewTally, reviewFix } from './fix-review.ts';

const PROJECT = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    repos: { type: 'string', default: process.env.BULWARK_REALVULN_DIR || path.resolve(PROJECT, '..', '.bench-cache', 'realvuln') },
    only: { type: 'string' },
    types: { type: 'string', default: 'semgrep_scan' },
    rules: { type: 'string' },
    'max-per-repo': { type: 'string', default: '1000' },
    osv: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    diffs: { type: 'string' },
  },
});

const reposDir = path.resolve(values.repos!);
if (!fs.existsSync(reposDir)) {
  console.error(`No checkouts at ${reposDir}. Put one folder per repository there (see ../shared/bench/realvuln/dev-repos.json for the`);
  console.error('repositories and commits) or pass --repos DIR; this bench does not download anything.');
  process.exit(2);
}
const only = values.only?.split(',').map((s) => s.trim());
const repos = fs.readdirSync(reposDir).filter((name) => fs.statSync(path.join(reposDir, name)).isDirectory() && (!only || only.includes(name))).sort();
const scanTypes = values.types!.split(',').map((s) => s.trim());
const rules = loadRuleSet();

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' }, maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] });

/** A git repository in the temporary folder holding one commit of the checkout (without its .git). */
function snapshot(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bulwark-bench-fixes-${name}-`));
  fs.cpSync(path.join(reposDir, name), dir, { recursive: true, filter: (src) => path.basename(src) !== '.git' });
  git(dir, 'init', '--quiet', '--initial-branch', 'main');
  git(dir, 'config', 'user.email', 'bench@example.test');
  git(dir, 'config', 'user.name', 'Bench');
  git(dir, 'config', 'commit.gpgsign', 'false');
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '--no-verify', '-m', 'snapshot');
  return dir;
}

interface Row {
  findings: number;
  noFixer: number;
  overlap: number;
  /** Taken into an earlier fix of its repository (the same change fixes it), so not fixed apart. */
  along: number;
  completed: number;
  applies: number;
  parses: number;
  gone: number;
  masked: number;
  introduced: number;
  verified: number;
}
const empty = (): Row => ({ findings: 0, noFixer: 0, overlap: 0, along: 0, completed: 0, masked: 0, applies: 0, parses: 0, gone: 0, introduced: 0, verified: 0 });
/**
 * Whether the diffs apply one after another to HEAD of `dir` (in an index of their own: the work tree is
 * left alone), each after the first merged as a pull request would be (`--3way`) unless `plain`.
 */
function appliesInOrder(dir: string, diffs: string[], plain = false): boolean {
  const index = path.join(os.tmpdir(), `bulwark-bench-fixes-index-${process.pid}`);
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_INDEX_FILE: index };
  try {
    execFileSync('git', ['read-tree', 'HEAD'], { cwd: dir, env, stdio: 'pipe' });
    for (const [i, diff] of diffs.entries()) {
      const args = ['apply', '--cached', ...(i > 0 && !plain ? ['--3way'] : []), '-'];
      execFileSync('git', args, { cwd: dir, env, input: diff, stdio: 'pipe', maxBuffer: 64 << 20 });
    }
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(index, { force: true });
  }
}

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

/** Whether the fix's own change removes or adds a line holding a credential (its served diff then masks a changed line). */
const changesCredentialLine = (diff: string) =>
  diff.split('\n').some((line) => /^[-+](?![-+]{2} )/.test(line) && maskSecretsIn(line) !== line);

interface CompletedFix {
  id: string;
  where: string;
  diff: string;
}

/** The repository's completed fixes applied together: each checked order, and the pairs that do not apply one after the other. */
const together = { repos: 0, setsApplying: 0, ordersChecked: 0, ordersFailing: 0, pairsChecked: 0, pairsConflicting: 0, pairsPlainFailing: 0 };
const servedFigures = { eligible: 0, applies: 0 };

function checkTogether(name: string, dir: string, fixes: CompletedFix[]) {
  if (fixes.length < 2) return;
  together.repos++;
  if (appliesInOrder(dir, fixes.map((f) => f.diff))) together.setsApplying++;
  else if (values.verbose) console.log(`together   ${name}: the ${fixes.length} completed fixes do not apply in the order they completed`);
  if (fixes.length <= 4) {
    for (const order of permutations(fixes)) {
      together.ordersChecked++;
      if (!appliesInOrder(dir, order.map((f) => f.diff))) together.ordersFailing++;
    }
  }
  const files = fixes.map((f) => new Set(changedFilesOf(f.diff)));
  for (let i = 0; i < fixes.length; i++) {
    for (let j = i + 1; j < fixes.length; j++) {
      if (![...files[i]!].some((file) => files[j]!.has(file))) continue;
      together.pairsChecked++;
      const pair = [fixes[i]!.diff, fixes[j]!.diff];
      if (!appliesInOrder(dir, pair, true) || !appliesInOrder(dir, [...pair].reverse(), true)) together.pairsPlainFailing++;
      if (appliesInOrder(dir, pair) && appliesInOrder(dir, [...pair].reverse())) continue;
      together.pairsConflicting++;
      if (values.verbose) console.log(`conflict   ${fixes[i]!.where} (${fixes[i]!.id}) × ${fixes[j]!.where} (${fixes[j]!.id})`);
    }
  }
}

const byRule = new Map<string, Row>();
const byType = new Map<string, Row>();
const failures = new Map<string, number>();
const reviews = new FixReviewTally();

function changedFilesOf(diff: string): string[] {
  return [...diff.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]!);
}

function syntaxErrorCount(file: string, text: string): number {
  const parser = codeParserFor(file);
  return parser ? syntaxErrors(parseCode(parser, text)).count : 0;
}

function matchKeys(file: string, text: string): Map<string, number> {
  const parser = parserFor(file);
  const keys = new Map<string, number>();
  if (!parser) return keys;
  for (const m of analyzeSource(rules, parser, text)) {
    const key = m.rule.id;
    keys.set(key, (keys.get(key) ?? 0) + 1);
  }
  return keys;
}

/** Findings the changed file has more of than before, of rules other than the fixed one. */
function introduced(file: string, before: string, after: string, ruleId: string): number {
  const old = matchKeys(file, before);
  let count = 0;
  for (const [key, n] of matchKeys(file, after)) {
    if (key === ruleId) continue;
    count += Math.max(0, n - (old.get(key) ?? 0));
  }
  return count;
}

const registries = Object.fromEntries(['BULWARK_PYPI_URL', 'BULWARK_NPM_REGISTRY_URL'].flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])));
const harness = await createHarness({ scanning: true, env: registries });
if (values.osv) {
  const report = await importOsv(harness.database.store.db, path.resolve(values.osv));
  console.log(`imported OSV records from ${values.osv}: ${JSON.stringify(report)}`);
}
const org = await harness.org('bench');
const started = Date.now();
try {
  for (const name of repos) {
    const dir = snapshot(name);
    try {
      const unit = await harness.unit(org, [`github:bench/${name}@main`], name, [dir]);
      const completedFixes: CompletedFix[] = [];
      /** Findings an earlier completed fix took in along with the one it was asked for: whether its change verifiably fixes them. */
      const fixedAlong = new Map<string, { fixId: string; verified: boolean }>();
      const base = `/api/v1/repositories/${unit.id}`;
      for (const scanType of scanTypes) {
        const created = await harness.call('POST', `${base}/scans`, { body: { scan_type: scanType } });
        if (created.statusCode !== 202) throw new Error(`scan of ${name}: ${created.statusCode} ${created.body}`);
        const batch = created.json().batch_id;
        for (;;) {
          const progress = (await harness.call('GET', `${base}/scans/${batch}/progress`)).json();
          if (['completed', 'partial_failure', 'failed'].includes(progress.status)) break;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        let findings: any[] = [];
        for (let skip = 0; ; skip += 100) {
          const page = (await harness.call('GET', `${base}/findings?scan_type=${scanType}&status=open&limit=100&skip=${skip}`)).json();
          if (!Array.isArray(page.items)) throw new Error(`findings of ${name}: ${JSON.stringify(page)}`);
          findings.push(...page.items);
          if (!page.has_next) break;
        }
        const prefixes = values.rules?.split(',').filter(Boolean);
        if (prefixes?.length) findings = findings.filter((f) => prefixes.some((prefix) => f.check_id.startsWith(prefix)));
        findings = findings.slice(0, Number(values['max-per-repo']));
        for (const finding of findings) {
          const rule = byRule.get(finding.check_id) ?? empty();
          const type = byType.get(scanType) ?? empty();
          byRule.set(finding.check_id, rule);
          byType.set(scanType, type);
          const count = (field: keyof Row, n = 1) => {
            rule[field] += n;
            type[field] += n;
          };
          count('findings');
          const along = fixedAlong.get(finding.id);
          if (along) {
            count('along');
            if (along.verified) count('verified');
            if (values.verbose) console.log(`along      ${name}/${finding.file_path}:${finding.start_line ?? '?'} ${finding.check_id}: fixed${along.verified ? ' (verified)' : ''} by fix ${along.fixId}`);
            continue;
          }
          const fix = await harness.call('POST', `${base}/fixes`, {
            body: { finding_ids: [finding.id], title: `Fix ${finding.check_id}`, instructions: 'Fix it without changing behaviour.', source_repo: `bench/${name}` },
          });
          if (fix.statusCode === 409) {
            const refusal = fix.json().detail;
            if (refusal?.error_code === 'FIX_OVERLAPS') {
              count('overlap');
              if (values.verbose) console.log(`overlap    ${name}/${finding.file_path}:${finding.start_line ?? '?'} ${finding.check_id}: ${refusal.detail}`);
            } else count('noFixer');
            continue;
          }
          if (fix.statusCode !== 201) throw new Error(`fix of ${finding.id}: ${fix.statusCode} ${fix.body}`);
          const fixId = fix.json().id;
          let progress: any;
          for (;;) {
            progress = (await harness.call('GET', `${base}/fixes/${fixId}/progress`)).json();
            if (['completed', 'failed', 'cancelled'].includes(progress.status)) break;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          const where = `${name}/${finding.file_path}:${finding.start_line ?? '?'} ${finding.check_id}`;
          if (progress.status !== 'completed') {
            const reason = String(progress.error_message ?? progress.status).replace(/^.*?\((.*)\)[^)]*$/s, '$1').replace(/ at [^ ]+:\d+/g, '').slice(0, 160);
            failures.set(`${finding.check_id}: ${reason}`, (failures.get(`${finding.check_id}: ${reason}`) ?? 0) + 1);
            if (values.verbose) console.log(`failed     ${where}: ${progress.error_message}`);
            continue;
          }
          count('completed');
          const served: string = (await harness.call('GET', `${base}/fixes/${fixId}/diff`)).json().diff ?? '';
          const stored = await harness.database.store.db.selectFrom('fixes').selectAll().where('id', '=', fixId).executeTakeFirstOrThrow();
          const diff = stored.diff_ciphertext ? testTokenBox.open(stored.diff_ciphertext) : served;
          if (diff !== served) count('masked');
          completedFixes.push({ id: fixId, where, diff });
          if (values.diffs) {
            const report = fixReport(stored);
            const noteLines = [...report.outcomes.map((o) => `changed: ${o.detail}`), ...report.notes].join('\n');
            const file = path.join(values.diffs, name, `${finding.check_id}--${String(finding.file_path).replace(/[/\\]/g, '_')}-${finding.start_line ?? 0}.diff`);
            fs.mkdirSync(path.dirname(file), { recursive: true });
            fs.writeFileSync(file, `${noteLines.replace(/^/gm, '# ')}\n${diff}`);
          }
          if (!changesCredentialLine(diff)) {
            servedFigures.eligible++;
            if (appliesInOrder(dir, [served])) servedFigures.applies++;
            else if (values.verbose) console.log(`served     ${where}: the served diff does not apply with git apply`);
          }
          const patch = path.join(os.tmpdir(), `bulwark-bench-fix-${fixId}.patch`);
          fs.writeFileSync(patch, diff);
          let applies = false;
          try {
            git(dir, 'apply', '--check', patch);
            git(dir, 'apply', patch);
            applies = true;
          } catch {
            // counted below
          }
          fs.rmSync(patch, { force: true });
          if (!applies) {
            if (values.verbose) console.log(`no-apply   ${where}`);
            continue;
          }
          count('applies');
          const files = changedFilesOf(diff);
          const originals = new Map(files.map((file) => [file, (() => { try { return git(dir, 'show', `HEAD:${file}`); } catch { return null; } })()]));
          const texts = new Map(files.map((file) => [file, fs.existsSync(path.join(dir, file)) ? fs.readFileSync(path.join(dir, file), 'utf8') : '']));
          const parses = files.every((file) => syntaxErrorCount(file, texts.get(file)!) <= syntaxErrorCount(file, originals.get(file) ?? ''));
          if (parses) count('parses');
          const row = await harness.database.store.db.selectFrom('findings').selectAll().where('id', '=', finding.id).executeTakeFirstOrThrow();
          const verification = await verifyFix(dir, [toFixFinding(row)], files, originals);
          const gone = verification.stillDetected.length === 0;
          if (gone) count('gone');
          const added = files.reduce((sum, file) => sum + introduced(file, originals.get(file) ?? '', texts.get(file)!, finding.check_id), 0);
          if (added) count('introduced');
          if (parses && gone && !added) count('verified');
          // The findings the fix took in along with this one are checked in the same patched tree.
          const alongIds = (await harness.database.store.db.selectFrom('fix_findings').select('finding_id').where('fix_id', '=', fixId).execute()).map((r) => r.finding_id).filter((id) => id !== finding.id);
          if (alongIds.length) {
            const rows = await harness.database.store.db.selectFrom('findings').selectAll().where('id', 'in', alongIds).execute();
            const still = new Set((await verifyFix(dir, rows.map(toFixFinding), files, originals)).stillDetected);
            for (const id of alongIds) fixedAlong.set(id, { fixId, verified: parses && !added && !still.has(id) });
          }
          if (values.verbose) console.log(`${parses && gone && !added ? 'verified ' : 'unverified'} ${where}${added ? ` (+${added} new)` : ''}`);
          const review = await reviewFix(dir, files.map((file) => ({ path: file, before: originals.get(file) ?? null, after: fs.existsSync(path.join(dir, file)) ? texts.get(file)! : null })));
          reviews.add(name, review);
          if (values.verbose) for (const f of review.findings.filter((f) => !f.preexisting)) console.log(`  review    ${f.kind} ${f.file}:${f.line ?? '?'} ${f.message}`);
          git(dir, 'checkout', '--quiet', '--', '.');
          git(dir, 'clean', '--quiet', '-fd');
        }
      }
      checkTogether(name, dir, completedFixes);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
} finally {
  await harness.close();
}

const pct = (n: number, d: number) => (d ? `${Math.round((100 * n) / d)}%` : '-');
function table(title: string, rows: Map<string, Row>) {
  console.log(`\n${title}`);
  const header = ['', 'findings', 'no fixer', 'overlap', 'along', 'completed', 'masked', 'applies', 'parses', 'gone', 'new found', 'verified', 'rate'];
  const lines = [...rows.entries()].sort((a, b) => b[1].findings - a[1].findings || a[0].localeCompare(b[0])).map(([key, r]) => [key, r.findings, r.noFixer, r.overlap, r.along, r.completed, r.masked, r.applies, r.parses, r.gone, r.introduced, r.verified, pct(r.verified, r.findings)].map(String));
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  for (const line of [header, ...lines]) console.log(line.map((cell, i) => (i ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  '));
}
console.log(`bench:fixes over ${repos.length} checkout(s) in ${reposDir} (${scanTypes.join(', ')}), ${Math.round((Date.now() - started) / 1000)} s`);
table('per rule', byRule);
table('per scan type', byType);
console.log('\ncompleted fixes of one repository merged together into the scanned commit (git apply --3way, as pull requests merge)');
console.log(`  repositories with 2+ completed fixes: ${together.repos}; whole set applies in completion order: ${together.setsApplying} of ${together.repos}`);
console.log(`  orders checked (sets of up to 4): ${together.ordersChecked}, failing: ${together.ordersFailing}`);
console.log(`  pairs sharing a file, checked both ways: ${together.pairsChecked}, conflicting: ${together.pairsConflicting}`);
console.log(`  the same pairs with plain git apply in sequence (exact context): ${together.pairsPlainFailing} do not apply`);
console.log(`served diffs (masked) applying on their own, of fixes changing no credential line: ${servedFigures.applies} of ${servedFigures.eligible} (${pct(servedFigures.applies, servedFigures.eligible)})`);
for (const line of reviews.lines()) console.log(line);
if (failures.size) {
  console.log('\nwhy fixes failed (count, rule: reason)');
  for (const [reason, n] of [...failures.entries()].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(4)}  ${reason}`);
}

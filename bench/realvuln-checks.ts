// The per-check table of bench:realvuln: for each check id, its true and false positives in each app,
// taken from score.py's own decisions (`--json --details`), so a result is matched to the ground truth
// exactly as the headline scores match it (same path, an acceptable CWE, start line within ±10 of the
// entry, each entry claimed once in file order). A result listing several CWEs is several findings, as
// score.py counts it; results without a readable CWE are ignored by score.py and so appear here in no row.
// A check fails the default-enable bar when its true positives come from fewer than two apps or its
// precision across the apps scored is below 0.5.

export interface ScorerDecision {
  class: 'TP' | 'FP' | 'FN' | 'TN';
  finding: { file: string; line: number | null; cwe: string; rule: string | null } | null;
  gt_id: string | null;
}

export interface CheckRow {
  check: string;
  perApp: Map<string, { tp: number; fp: number }>;
  tp: number;
  fp: number;
  precision: number;
  tpApps: number;
  failures: string[];
}

export const MIN_TP_APPS = 2;
export const MIN_PRECISION = 0.5;

export function perCheck(perRepo: { repo: string; details?: ScorerDecision[] }[]): CheckRow[] {
  const rows = new Map<string, CheckRow>();
  for (const { repo, details } of perRepo) {
    for (const decision of details ?? []) {
      if (!decision.finding || (decision.class !== 'TP' && decision.class !== 'FP')) continue;
      const check = decision.finding.rule ?? '(no check id)';
      let row = rows.get(check);
      if (!row) rows.set(check, (row = { check, perApp: new Map(), tp: 0, fp: 0, precision: 0, tpApps: 0, failures: [] }));
      let app = row.perApp.get(repo);
      if (!app) row.perApp.set(repo, (app = { tp: 0, fp: 0 }));
      if (decision.class === 'TP') app.tp++;
      else app.fp++;
    }
  }
  for (const row of rows.values()) {
    for (const app of row.perApp.values()) {
      row.tp += app.tp;
      row.fp += app.fp;
      if (app.tp > 0) row.tpApps++;
    }
    row.precision = row.tp / (row.tp + row.fp);
    if (row.tpApps < MIN_TP_APPS) row.failures.push(row.tpApps === 0 ? 'no TP' : 'TPs from one app');
    if (row.precision < MIN_PRECISION) row.failures.push(`precision < ${MIN_PRECISION}`);
  }
  return [...rows.values()].sort((a, b) => b.tp - a.tp || b.fp - a.fp || a.check.localeCompare(b.check));
}

const short = (repo: string) => repo.replace(/^realvuln-/, '');
const pad = (s: string | number, n: number) => String(s).padStart(n);

export function printPerCheck(title: string, rows: CheckRow[], apps: number): void {
  console.log(`\nper check: ${title} (${apps} app(s) scored; bar: TPs from >= ${MIN_TP_APPS} apps and precision >= ${MIN_PRECISION})`);
  if (!rows.length) {
    console.log('  no results with a CWE');
    return;
  }
  const width = Math.max(24, ...rows.map((r) => r.check.length));
  console.log(`  ${'check'.padEnd(width)} ${pad('TP', 4)} ${pad('FP', 4)} ${pad('Prec', 5)} ${pad('apps', 4)}  bar`);
  for (const row of rows) {
    const verdict = row.failures.length ? `FAIL (${row.failures.join(', ')})` : 'ok';
    console.log(`  ${row.check.padEnd(width)} ${pad(row.tp, 4)} ${pad(row.fp, 4)} ${pad(row.precision.toFixed(2), 5)} ${pad(row.tpApps, 4)}  ${verdict}`);
    const apps = [...row.perApp].sort(([a], [b]) => a.localeCompare(b)).map(([repo, c]) => `${short(repo)} ${c.tp}/${c.fp}`);
    console.log(`  ${''.padEnd(width)}   TP/FP per app: ${apps.join(', ')}`);
  }
  const failing = rows.filter((r) => r.failures.length).length;
  console.log(`  ${failing} of ${rows.length} check(s) below the bar`);
}

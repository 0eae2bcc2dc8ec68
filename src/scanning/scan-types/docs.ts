import { allScanTypes } from './index.ts';

export const README_START = '<!-- scan-types:start (generated from src/scanning/scan-types by scripts/docs-tables.ts) -->';
export const README_END = '<!-- scan-types:end -->';

/** The README's scan-type table, written from the registry. */
export function scanTypesTable(): string {
  const rows = allScanTypes().map((d) => {
    const families = d.families.map((f) => (f === 'repository' ? 'repositories' : 'applications')).join(', ');
    const engine = d.engine ? 'yes' : 'not yet (the batch fails at once, credit returned)';
    return `| \`${d.name}\` | ${d.summary} | ${families} | \`${d.quotaType}\` | ${engine} |`;
  });
  return ['| Scan type | What it finds | Accepted by | Credit | Engine on this build |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/** `readme` with the text between the markers replaced by the current table. */
export function withScanTypesTable(readme: string): string {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start) throw new Error('the README has no scan-types markers');
  return `${readme.slice(0, start + README_START.length)}\n${scanTypesTable()}\n${readme.slice(end)}`;
}

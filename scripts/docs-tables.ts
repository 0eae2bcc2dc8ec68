// Rewrites the README's tables that are generated from registries, each between its marker comments
// (`<!-- name:start … -->` and `<!-- name:end -->`): scan types, dependency formats and code hosts.
// `node scripts/docs-tables.ts` writes them; test/codebase/docs-tables.test.ts fails when one is stale.
import fs from 'node:fs';
import path from 'node:path';
import { CODE_HOSTS } from '../src/code-hosts/index.ts';
import { ECOSYSTEMS } from '../src/inventory/component.ts';
import { EXTRACTORS } from '../src/inventory/extractors/index.ts';
import { withScanTypesTable } from '../src/scanning/scan-types/docs.ts';

export const README = path.join(import.meta.dirname, '..', 'README.md');

/** `text` with what stands between the `name` markers replaced by `body`. */
export function between(text: string, name: string, body: string): string {
  const start = text.indexOf(`<!-- ${name}:start`);
  const opened = text.indexOf('-->', start) + 3;
  const end = text.indexOf(`<!-- ${name}:end -->`);
  if (start < 0 || end < opened) throw new Error(`the README has no ${name} markers`);
  return `${text.slice(0, opened)}\n${body}\n${text.slice(end)}`;
}

const row = (cells: string[]) => `| ${cells.join(' | ')} |`;

/** The dependency formats, one row per ecosystem in its registry's order, from each extractor's `docs`. */
export function formatsTable(): string {
  const rows = ECOSYSTEMS.map((ecosystem) => [ecosystem, EXTRACTORS.filter((e) => e.ecosystem === ecosystem).map((e) => e.docs)] as const)
    .filter(([, docs]) => docs.length)
    .map(([ecosystem, docs]) => row([ecosystem, docs.join(', ')]));
  return [row(['Ecosystem', 'Files']), row(['---', '---']), ...rows, '', `That is ${EXTRACTORS.length} formats, one extractor each under \`src/inventory/extractors/\` (osv-scanner reads 28).`].join('\n');
}

/** The code hosts, from their descriptors in src/code-hosts/. */
export function codeHostsTable(): string {
  const rows = CODE_HOSTS.map((host) =>
    row([
      host.label,
      [host.name, ...host.aliases].map((word) => `\`${word}:${host.repository.form}[@branch]\``).join(', '),
      `\`${host.api.env}\` (default \`${host.api.default}\`)`,
      `${host.pullRequests.noun}s, descriptions up to ${host.pullRequests.maxBodyLength.toLocaleString('en-US')} characters`,
    ]),
  );
  return [row(['Code host', '`--source`', 'API root', 'Opens']), row(['---', '---', '---', '---']), ...rows].join('\n');
}

/** `readme` with every generated table written from the registries as they are now. */
export function withDocTables(readme: string): string {
  let text = withScanTypesTable(readme);
  text = between(text, 'formats', formatsTable());
  text = between(text, 'code-hosts', codeHostsTable());
  return text;
}

if (import.meta.main) {
  const before = fs.readFileSync(README, 'utf8');
  const after = withDocTables(before);
  if (after !== before) fs.writeFileSync(README, after);
  console.log(after === before ? 'README tables are up to date' : 'README tables rewritten');
}

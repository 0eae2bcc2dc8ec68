import { maskSecretsIn } from '../../scanning/secrets/mask-text.ts';
import type { FindingRow, FixRow } from '../../store/schema.ts';
import { severityRank } from '../../core/severity.ts';

/** Longest title any of the three code hosts accepts (GitLab: 255 characters). */
export const MAX_TITLE_LENGTH = 255;

export function fitTitle(title: string): string {
  return truncate(oneLine(title), MAX_TITLE_LENGTH);
}

export interface PullRequestContent {
  fix: Pick<FixRow, 'id' | 'title'>;
  /** The fix's findings, in the fix's order. */
  findings: FindingRow[];
  /** How the fix's verification went, in one sentence; null when none was recorded. */
  verification: string | null;
  /** What the fix leaves to the people merging it: variables to set, credentials to rotate. */
  notes?: string[];
  /** The findings the fix did not fix, with why. */
  notFixed?: { findingId: string; detail: string }[];
  /** What the fix changed for each finding it fixed, behaviour changes included, as its fixer said. */
  changed?: { findingId: string; detail: string }[];
}

function capitalize(text: string): string {
  return text ? text[0].toUpperCase() + text.slice(1).toLowerCase() : text;
}

/** Text on one line, with any credential in it masked: titles and notes end up on a code host for good. */
function oneLine(text: string): string {
  return maskSecretsIn(text).replace(/\s+/g, ' ').trim();
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/** The CWE numbers a finding names: its `cwe` column holds a JSON list such as `["CWE-79"]`. */
export function cweNumbers(cwe: string): number[] {
  let items: unknown[];
  try {
    const parsed: unknown = JSON.parse(cwe);
    items = Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    items = cwe.split(',');
  }
  const numbers: number[] = [];
  for (const item of items) {
    const match = /^\s*(?:CWE-?)?(\d{1,5})\b/i.exec(String(item ?? ''));
    if (match && !numbers.includes(Number(match[1]))) numbers.push(Number(match[1]));
  }
  return numbers;
}

export function cweLink(n: number): string {
  return `[CWE-${n}](https://cwe.mitre.org/data/definitions/${n}.html)`;
}

/** Text as a code span inside a table cell: pipes escaped, one line, a fence longer than any backtick run. */
function codeCell(text: string): string {
  const flat = oneLine(text).replace(/\|/g, '\\|');
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** Plain text that cannot turn into markup, links, mentions or table cells. */
export function escapeMarkdown(text: string): string {
  return oneLine(text).replace(/[\\`*_{}[\]()<>#+!|~@&]/g, (c) => `\\${c}`);
}

export function findingLocation(finding: Pick<FindingRow, 'file_path' | 'start_line' | 'end_line'>): string {
  if (finding.start_line === null) return finding.file_path;
  const end = finding.end_line !== null && finding.end_line > finding.start_line ? `-${finding.end_line}` : '';
  return `${finding.file_path}:${finding.start_line}${end}`;
}

function sortedFindings(findings: FindingRow[]): FindingRow[] {
  return findings
    .map((finding, index) => ({ finding, index }))
    .sort((a, b) => severityRank(a.finding.severity.toLowerCase()) - severityRank(b.finding.severity.toLowerCase()) || a.index - b.index)
    .map(({ finding }) => finding);
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** How a dependency fix's note says it moves a package to a new major version (see majorVersionNote). */
const MAJOR_VERSION_NOTE = /, a new major version:/;

/**
 * `Fix 3 security findings: <fix title>`, or the fix's own title when it names no findings; a fix that
 * moves a dependency to a new major version says so first, as that is what a reviewer must look at.
 */
export function pullRequestTitle(content: Pick<PullRequestContent, 'fix' | 'findings' | 'notes'>): string {
  const title = oneLine(content.fix.title);
  const count = content.findings.length;
  const major = content.notes?.some((note) => MAJOR_VERSION_NOTE.test(note)) ? '[major version upgrade] ' : '';
  return truncate(`${major}${count ? `Fix ${plural(count, 'security finding')}: ${title}` : title}`, MAX_TITLE_LENGTH);
}

function verificationLine(verification: string | null): string {
  return verification ? escapeMarkdown(verification) : 'No verification was recorded for this fix.';
}

/** The markdown description: what was fixed (a findings table), how it was verified, and who wrote it. */
export function pullRequestBody(content: PullRequestContent): string {
  const { fix, findings } = content;
  const lines: string[] = [];
  lines.push(
    findings.length && content.notFixed?.length
      ? `This pull request fixes ${findings.length - content.notFixed.length} of the ${plural(findings.length, 'security finding')} reported by Bulwark.`
      : findings.length
      ? `This pull request fixes ${plural(findings.length, 'security finding')} reported by Bulwark.`
      : 'This pull request applies a security fix prepared by Bulwark.',
    '',
    `**Fix:** ${escapeMarkdown(fix.title)}`,
    '',
  );
  if (findings.length) {
    lines.push('| Severity | Rule | CWE | Location |', '| --- | --- | --- | --- |');
    for (const finding of sortedFindings(findings)) {
      const cwes = cweNumbers(finding.cwe).map(cweLink).join(', ') || '—';
      lines.push(`| ${escapeMarkdown(capitalize(finding.severity))} | ${codeCell(finding.check_id)} | ${cwes} | ${codeCell(findingLocation(finding))} |`);
    }
    lines.push('');
  }
  /** A section of one line per finding: its rule and place, then what is said of it. */
  const perFinding = (heading: string, items: { findingId: string; detail: string }[] = []) => {
    if (!items.length) return;
    lines.push(heading, '');
    for (const { findingId, detail } of items) {
      const finding = findings.find((f) => f.id === findingId);
      lines.push(`- ${codeCell(finding ? `${finding.check_id} ${findingLocation(finding)}` : findingId)}: ${escapeMarkdown(oneLine(detail))}`);
    }
    lines.push('');
  };
  perFinding('**What changed:**', content.changed);
  perFinding('**Not fixed by this pull request:**', content.notFixed);
  if (content.notes?.length) {
    lines.push('**Before merging:**', '');
    for (const note of content.notes) lines.push(`- [ ] ${escapeMarkdown(oneLine(note))}`);
    lines.push('');
  }
  lines.push(`**Verification:** ${verificationLine(content.verification)}`, '', '---', '');
  lines.push(`<sub>Generated by Bulwark for fix \`${fix.id}\`. Review the changes before merging.</sub>`);
  return lines.join('\n') + '\n';
}

/** The fix commit's message: the pull request's title, then a plain-text summary of what it fixes. */
export function commitMessage(title: string, content: PullRequestContent): string {
  const lines = [oneLine(title), ''];
  if (content.findings.length) {
    lines.push('Fixes:');
    for (const finding of sortedFindings(content.findings)) {
      const cwes = cweNumbers(finding.cwe).map((n) => `CWE-${n}`);
      const rule = oneLine(finding.check_id);
      lines.push(`- ${finding.severity.toLowerCase()} ${rule}${cwes.length ? ` (${cwes.join(', ')})` : ''} at ${oneLine(findingLocation(finding))}`);
    }
    lines.push('');
  }
  if (content.notes?.length) lines.push('Before merging:', ...content.notes.map((note) => `- ${oneLine(note)}`), '');
  if (content.verification) lines.push(`Verification: ${oneLine(content.verification)}`, '');
  lines.push(`Generated by Bulwark for fix ${content.fix.id}.`);
  return lines.join('\n') + '\n';
}

/** Cuts a body to a code host's limit (Azure DevOps takes 4000 characters), saying so at the end. */
export function fitBody(body: string, max: number): string {
  if (body.length <= max) return body;
  const note = '\n\n… (description shortened to fit the code host\'s limit)\n';
  return body.slice(0, max - note.length).trimEnd() + note;
}

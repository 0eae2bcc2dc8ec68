import { isDocument, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { RepoFacts } from '../../repo-facts.ts';
import { createOrWriteTreeFile, readTreeFile, writeTreeFile } from '../shared/tree-files.ts';

// Where the variables a fix introduces are listed, without values: the repository's one environment
// template (its existing `.env.example`, `.env.sample`…, the one nearest the root, else a new
// `.env.example` at the root), and the `environment:` of the compose services built from the
// repository. Each variable is listed once, its line added after the template's last line.

/** The repository's shared environment template: its existing one nearest the root, else `.env.example`. */
export function templatePath(facts: RepoFacts): string {
  const existing = [...facts.config.envTemplates].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
  return existing[0] ?? '.env.example';
}

/** Adds `NAME=` lines for the variables the template lacks, in sorted order; returns its path when it changed. */
export async function listInEnvTemplate(dir: string, template: string, names: string[]): Promise<string | null> {
  const text = (await readTreeFile(dir, template)) ?? '';
  const missing = [...new Set(names)].filter((name) => !new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=`, 'm').test(text)).sort();
  if (!missing.length) return null;
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const lead = text === '' || text.endsWith('\n') ? '' : newline;
  await createOrWriteTreeFile(dir, template, `${text}${lead}${missing.map((name) => `${name}=${newline}`).join('')}`);
  return template;
}

/**
 * Adds `NAME: ${NAME}` (or `- NAME=${NAME}`, as the list is written) to the `environment:` of the compose
 * services built from a folder holding `file`; services without an `environment:` are left as they are.
 * Returns the compose files it changed.
 */
export async function listInCompose(dir: string, facts: RepoFacts, file: string, names: string[]): Promise<string[]> {
  const changed: string[] = [];
  for (const compose of facts.start.compose) {
    const folder = compose.path.includes('/') ? compose.path.slice(0, compose.path.lastIndexOf('/')) : '';
    const services = compose.services.filter((s) => s.build !== null && s.environment !== null && builds(folder, s.build, file)).map((s) => s.name);
    if (!services.length) continue;
    const text = await readTreeFile(dir, compose.path);
    if (text === null) continue;
    const updated = withEnvironment(text, services, names);
    if (updated !== text) {
      await writeTreeFile(dir, compose.path, updated);
      changed.push(compose.path);
    }
  }
  return changed;
}

/** Whether a service built from `context` (relative to the compose file's folder) holds `file`. */
function builds(folder: string, context: string, file: string): boolean {
  const parts = [...(folder ? folder.split('/') : []), ...context.split('/')].filter((p) => p && p !== '.');
  const resolved: string[] = [];
  for (const part of parts) {
    if (part === '..') {
      if (!resolved.length) return false;
      resolved.pop();
    } else resolved.push(part);
  }
  const root = resolved.join('/');
  return root === '' || file.startsWith(`${root}/`);
}

/** The compose text with the variables added to each named service's block-style `environment:`. */
export function withEnvironment(text: string, services: string[], names: string[]): string {
  const doc = parseDocument(text);
  if (!isDocument(doc) || doc.errors.length) return text;
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const inserts: { at: number; text: string }[] = [];
  const all = doc.get('services');
  if (!isMap(all)) return text;
  for (const service of services) {
    const node = all.get(service);
    if (!isMap(node)) continue;
    const environment = node.get('environment');
    if (!(isSeq(environment) || isMap(environment)) || environment.flow || !environment.items.length || !environment.range) continue;
    const listed = isSeq(environment)
      ? environment.items.map((item) => (isScalar(item) ? String(item.value).split('=')[0] : ''))
      : environment.items.map((pair) => (isScalar(pair.key) ? String(pair.key.value) : ''));
    const missing = [...new Set(names)].filter((name) => !listed.includes(name)).sort();
    if (!missing.length) continue;
    const first = (isSeq(environment) ? environment.items[0] : environment.items[0].key) as { range?: [number, number, number] } | null;
    const lastItem = environment.items.at(-1)!;
    const last = (isSeq(environment) ? lastItem : ((lastItem as { value?: unknown }).value ?? (lastItem as { key: unknown }).key)) as { range?: [number, number, number] } | null;
    if (!first?.range || !last?.range) continue;
    const lineStart = text.lastIndexOf('\n', first.range[0] - 1) + 1;
    const indent = /^[ \t]*/.exec(text.slice(lineStart))![0];
    const at = endOfLine(text, last.range[1]);
    const lines = missing.map((name) => (isSeq(environment) ? `${indent}- ${name}=\${${name}}` : `${indent}${name}: \${${name}}`));
    inserts.push({ at, text: lines.map((line) => `${newline}${line}`).join('') });
  }
  let result = text;
  for (const insert of inserts.sort((a, b) => b.at - a.at)) result = result.slice(0, insert.at) + insert.text + result.slice(insert.at);
  return result;
}

/** Where the line holding `offset` ends, before its line break. */
function endOfLine(text: string, offset: number): number {
  const newline = text.indexOf('\n', Math.max(0, offset));
  if (newline === -1) return text.length;
  return text[newline - 1] === '\r' ? newline - 1 : newline;
}

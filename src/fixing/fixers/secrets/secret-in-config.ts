import path from 'node:path';
import YAML from 'yaml';
import { envNameForRule, toEnvName } from './env-names.ts';
import type { LocatedSecret } from './secret-location.ts';
import { applyEdits, lineStarts } from '../shared/text-edits.ts';

// Configuration files whose loader expands `${NAME}` from the environment: Docker Compose files and
// Spring Boot's application files. The whole value holding the secret becomes a reference, named for
// its key. Other data files cannot read the environment, so they are not edited.

export type InterpolatingFormat = 'compose' | 'spring-yaml' | 'spring-properties';

export function interpolatingFormatOf(file: string): InterpolatingFormat | undefined {
  const base = path.posix.basename(file);
  if (/^(?:docker-)?compose(?:[.-][\w.-]+)?\.ya?ml$/i.test(base)) return 'compose';
  if (/^(?:application|bootstrap)(?:-[\w-]+)?\.ya?ml$/.test(base)) return 'spring-yaml';
  if (/^(?:application|bootstrap)(?:-[\w-]+)?\.properties$/.test(base)) return 'spring-properties';
  return undefined;
}

export type ConfigSecretResult = { kind: 'reference'; text: string; name: string } | { kind: 'refused'; reason: string };

export function referenceSecretInConfig(format: InterpolatingFormat, text: string, secret: LocatedSecret): ConfigSecretResult {
  return format === 'spring-properties' ? inProperties(text, secret) : inYaml(format, text, secret);
}

function inYaml(format: InterpolatingFormat, text: string, secret: LocatedSecret): ConfigSecretResult {
  const documents = YAML.parseAllDocuments(text);
  if (!Array.isArray(documents) || documents.some((d) => d.errors.length)) {
    return { kind: 'refused', reason: 'the file is not valid YAML' };
  }
  let found: { scalar: YAML.Scalar; path: readonly unknown[] } | undefined;
  for (const document of documents) {
    YAML.visit(document, {
      Scalar(_key, node, nodePath) {
        const [start, end] = node.range ?? [0, 0];
        if (start <= secret.start && secret.end <= end) {
          found = { scalar: node, path: nodePath };
          return YAML.visit.BREAK;
        }
      },
    });
    if (found) break;
  }
  if (!found) return { kind: 'refused', reason: 'the secret is not in a YAML value' };
  const { scalar, path: nodePath } = found;
  if (scalar.type !== 'PLAIN' && scalar.type !== 'QUOTE_DOUBLE' && scalar.type !== 'QUOTE_SINGLE') {
    return { kind: 'refused', reason: 'the secret is in a block scalar, which the fixer does not rewrite' };
  }
  const parent = nodePath.at(-1);
  const collection = nodePath.at(-2);
  const inFlow = [parent, collection].some((n) => (YAML.isMap(n) || YAML.isSeq(n)) && n.flow === true);

  let value: string;
  let name: string;
  if (YAML.isPair(parent) && parent.value === scalar) {
    const keys = nodePath.filter(YAML.isPair).map((pair) => String(YAML.isScalar(pair.key) ? pair.key.value : ''));
    name = toEnvName(format === 'compose' ? keys.at(-1)! : keys.join('.')) ?? envNameForRule(secret.rule.id);
    value = `\${${name}}`;
  } else if (YAML.isSeq(parent) && /^[A-Za-z_][A-Za-z0-9_]*=/.test(String(scalar.value))) {
    // Compose's list form of `environment`: `- KEY=value`.
    name = String(scalar.value).slice(0, String(scalar.value).indexOf('='));
    value = `${name}=\${${name}}`;
  } else {
    return { kind: 'refused', reason: 'the secret is not the value of a key' };
  }
  const quoted = scalar.type === 'QUOTE_SINGLE' ? `'${value}'` : scalar.type === 'QUOTE_DOUBLE' || inFlow ? `"${value}"` : value;
  const [start, end] = scalar.range!;
  return { kind: 'reference', text: applyEdits(text, [{ start, end, text: quoted }]), name };
}

/** `key=value`, `key: value` or `key value` on the secret's line. */
function inProperties(text: string, secret: LocatedSecret): ConfigSecretResult {
  const starts = lineStarts(text);
  const lineStart = starts[secret.startLine - 1];
  const lineEnd = secret.startLine < starts.length ? starts[secret.startLine] - 1 : text.length;
  const line = text.slice(lineStart, lineEnd).replace(/\r$/, '');
  const parts = /^(\s*)((?:[^=:\s\\]|\\.)+)(\s*[=:]\s*|\s+)(.*)$/.exec(line);
  if (!parts) return { kind: 'refused', reason: 'the secret is not the value of a property' };
  const [, indent, key, separator, value] = parts;
  const valueStart = lineStart + indent.length + key.length + separator.length;
  if (secret.start < valueStart || value.endsWith('\\')) {
    return { kind: 'refused', reason: 'the secret is not a single-line property value' };
  }
  const name = toEnvName(key) ?? envNameForRule(secret.rule.id);
  return { kind: 'reference', text: applyEdits(text, [{ start: valueStart, end: valueStart + value.length, text: `\${${name}}` }]), name };
}

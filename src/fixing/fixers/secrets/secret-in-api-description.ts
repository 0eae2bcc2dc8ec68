import type { LocatedSecret } from './secret-location.ts';
import { lineStartOf } from '../shared/text-edits.ts';

// OpenAPI and Swagger descriptions are documentation: the values under `example`, `x-example` and an
// `examples` entry's `value` are shown to readers (and echoed by mock servers), never read by the
// service as configuration. A credential there is redacted like one in a README. Everything else in
// such a file (a `default`, a server URL, a security scheme) can change how clients or the framework
// behave, so it stays a data file the fixer leaves alone.

const YAML_FILE = /\.ya?ml$/i;
const JSON_FILE = /\.json$/i;
const EXAMPLE_KEYS = new Set(['example', 'x-example']);

/** Whether the text is an OpenAPI or Swagger description: its top level names the version. */
export function isApiDescription(file: string, text: string): boolean {
  if (YAML_FILE.test(file)) return /^["']?(?:openapi|swagger)["']?\s*:/m.test(text);
  if (JSON_FILE.test(file)) return /^\s*\{\s*"(?:openapi|swagger)"\s*:/.test(text) || /^\s{0,4}"(?:openapi|swagger)"\s*:/m.test(text);
  return false;
}

/** Whether the secret is (inside) an example value of an OpenAPI or Swagger description. */
export function inApiDescriptionExample(file: string, text: string, secret: LocatedSecret): boolean {
  if (!isApiDescription(file, text)) return false;
  const lines = text.split('\n');
  const index = secret.startLine - 1;
  const line = lines[index];
  if (line === undefined || text.slice(secret.start, secret.end).includes('\n')) return false;
  const lineStart = lineStartOf(text, secret.start);
  // The key the value belongs to: the last one before it on its line, so inline JSON objects count too.
  const key = /["']?([\w$.-]+)["']?\s*:\s*["']?$/.exec(text.slice(lineStart, secret.start))?.[1];
  if (key === undefined) return false;
  if (EXAMPLE_KEYS.has(key)) return true;
  // `examples: { name: { value: … } }`: the value's grandparent key is `examples`.
  if (key !== 'value') return false;
  const parent = ancestorKey(lines, index, indentOf(line));
  return parent !== undefined && ancestorKey(lines, parent.index, parent.indent)?.key === 'examples';
}

/** The mapping key a YAML or JSON line starts with (after a list dash), without quotes. */
function keyOf(line: string): string | undefined {
  const m = /^\s*(?:-\s+)?["']?([\w$.-]+)["']?\s*:/.exec(line);
  return m?.[1];
}

function indentOf(line: string): number {
  return /^\s*(?:-\s+)?/.exec(line)![0].length;
}

/** The nearest line above with a smaller indent that opens a key: the enclosing mapping's key. */
function ancestorKey(lines: string[], index: number, indent: number): { key: string; index: number; indent: number } | undefined {
  for (let i = index - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.trim() || /^\s*#/.test(line)) continue;
    const own = indentOf(line);
    if (own >= indent) continue;
    const key = keyOf(line);
    return key === undefined ? undefined : { key, index: i, indent: own };
  }
  return undefined;
}

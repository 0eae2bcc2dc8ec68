// Decoders: credentials written in an encoding are decoded before they are judged, and a finding still
// points at (and masks) the text as written.
//
// - Kubernetes `Secret` manifests (and templates of them, several to a file or as `List` items) keep values
//   base64-encoded under `data:`, on the key's line or as a block scalar; each is decoded and the decoded
//   text is scanned with every rule, under its key's name. `stringData:` values are read as written.
// - URL-encoded credentials (`p%40ss`) are decoded, so the same password written plainly elsewhere has the
//   same identity.
// - JSON and notebook strings escape quotes and line breaks (`\"`, `\n`); the context detectors read an
//   escaped quote as a quote and an escaped line break as the end of a line.

/** A value decoded from an encoded form in the text. */
export interface EncodedValue {
  /** The key the value is stored under (`password` in `password: dGlnZXI=`). */
  key: string;
  decoded: string;
  /** Where the encoded value starts in the text, and the encoded value as written. */
  offset: number;
  encoded: string;
}

const SECRET_KIND = /^[ \t]*(?:-[ \t]+)?["']?kind["']?\s*:\s*["']?Secret["']?\s*,?\s*(?:#.*)?$/m;
const DOCUMENT_BREAK = /^(?:---|\.\.\.)[ \t]*(?:#.*)?\r?$/gm;
const DATA_BLOCK = /^([ \t]*(?:-[ \t]+)?)(data|binaryData|stringData)[ \t]*:[ \t]*(?:#.*)?$/;
/** `key: value`, `"key": 'value'`, or `key: |` / `key: >-` opening a block scalar, with a trailing comment. */
const DATA_ENTRY = /^([ \t]+)(["']?)([\w.-]{1,253})\2[ \t]*:[ \t]*(?:(["']?)([^\s"'#|>][^\s"']*)\4|(["'])([^"'\r\n]*)\6|([|>][+-]?\d?[+-]?))?[ \t]*(?:#.*)?\r?$/;
const BASE64_TEXT = /^[A-Za-z0-9+/]{4,}={0,2}$/;
/** A `kind:` key, to tell which object a `data:` block belongs to. */
const KIND_LINE = /^([ \t]*(?:-[ \t]+)?)["']?kind["']?[ \t]*:[ \t]*["']?(\w+)/;

/** Printable text (with line breaks and tabs): what a decoded credential or config file is. */
function isPrintable(text: string): boolean {
  return text.length > 0 && !/[^\t\n\r\x20-\x7e\u00a0-\uffff]/.test(text) && !text.includes('\ufffd');
}

/** Base64 text decoded, or undefined when it is not base64 of printable UTF-8. */
export function decodeBase64Text(encoded: string): string | undefined {
  if (encoded.length % 4 !== 0) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  return isPrintable(decoded) ? decoded : undefined;
}

/** Lines of a text with their offsets (a line's text excludes its `\r\n`). */
function linesOf(text: string, from: number, to: number): { at: number; line: string }[] {
  const out: { at: number; line: string }[] = [];
  for (let at = from; at < to; ) {
    const end = text.indexOf('\n', at);
    const stop = end === -1 || end > to ? to : end;
    out.push({ at, line: text.slice(at, stop).replace(/\r$/, '') });
    at = stop + 1;
  }
  return out;
}

const indentOf = (line: string) => line.length - line.trimStart().length;
const blank = (line: string) => !line.trim() || line.trimStart().startsWith('#');

/**
 * The `kind:` of the object a key at `column` on line `index` belongs to: the nearest `kind:` at the same
 * column, looking up and down until the object ends (a line at a lesser column, or the next list item).
 */
function kindAt(lines: { line: string }[], index: number, column: number): string | undefined {
  for (const step of [-1, 1]) {
    for (let i = index + step; i >= 0 && i < lines.length; i += step) {
      const line = lines[i].line;
      if (blank(line)) continue;
      const lead = /^[ \t]*(?:-[ \t]+)?/.exec(line)![0];
      const item = lead.includes('-');
      if (lead.length < column && !(item && lead.length === column)) break;
      if (lead.length === column) {
        if (item && step === 1) break;
        const kind = KIND_LINE.exec(line);
        if (kind) return kind[2];
        if (item) break;
      }
    }
  }
  return undefined;
}

/**
 * The values of a Kubernetes `Secret` manifest (and templates of them), in YAML or JSON, in a file of one
 * or several documents or a `List`: the base64 values under `data:` (and `binaryData:`) decoded, whether
 * written on the key's line or as a block scalar (`|`, `>`) over several lines, and the plain values under
 * `stringData:` written on the key's line or as a one-line block. Entries that do not decode to printable
 * text (certificates in DER, keystores) are left out. `plain` marks a `stringData:` value.
 */
export function kubernetesSecretValues(text: string): (EncodedValue & { plain?: boolean })[] {
  if (!text.includes('Secret') || !SECRET_KIND.test(text)) return [];
  const values: (EncodedValue & { plain?: boolean })[] = [];
  const breaks = [0];
  DOCUMENT_BREAK.lastIndex = 0;
  for (let b = DOCUMENT_BREAK.exec(text); b; b = DOCUMENT_BREAK.exec(text)) breaks.push(b.index);
  breaks.push(text.length);
  for (let d = 0; d + 1 < breaks.length; d++) {
    const [from, to] = [breaks[d], breaks[d + 1]];
    const doc = text.slice(from, to);
    if (!SECRET_KIND.test(doc)) continue;
    if (!/(?:data|binaryData|stringData)[ \t]*:/.test(doc)) continue;
    const lines = linesOf(text, from, to);
    for (let i = 0; i < lines.length; i++) {
      const block = DATA_BLOCK.exec(lines[i].line);
      if (!block || kindAt(lines, i, block[1].length) !== 'Secret') continue;
      const plain = block[2] === 'stringData';
      const indent = block[1].length;
      // A `stringData:` value as written; a `data:` one decoded, when it is base64 of printable text.
      const add = (key: string, written: string, offset: number, encoded: string) => {
        if (plain) return void values.push({ key, decoded: written, offset, encoded, plain });
        const decoded = BASE64_TEXT.test(written) ? decodeBase64Text(written) : undefined;
        if (decoded) values.push({ key, decoded, offset, encoded });
      };
      for (let j = i + 1; j < lines.length; j++) {
        const { at, line } = lines[j];
        if (blank(line)) continue;
        if (indentOf(line) <= indent) break;
        const entry = DATA_ENTRY.exec(line);
        if (!entry) continue;
        const [, lead, , key, , bare, , quotedValue, scalar] = entry;
        if (scalar !== undefined) {
          // A block scalar: the lines indented under the key.
          let last = j;
          for (let k = j + 1; k < lines.length && (blank(lines[k].line) || indentOf(lines[k].line) > lead.length); k++) if (!blank(lines[k].line)) last = k;
          if (last === j) continue;
          const scalarLines = lines.slice(j + 1, last + 1).filter((l) => l.line.trim());
          const body = scalarLines.map((l) => l.line.trim());
          const encodedStart = scalarLines[0].at + indentOf(scalarLines[0].line);
          const encoded = text.slice(encodedStart, lines[last].at + lines[last].line.length);
          j = last;
          // Plain text is taken from a one-line block only; base64 runs over as many lines as it needs.
          if (!plain || body.length === 1) add(key, plain ? body[0] : body.join(''), encodedStart, encoded);
          continue;
        }
        const written = bare ?? quotedValue;
        if (written === undefined || written === '') continue;
        add(key, written, at + line.lastIndexOf(written), written);
      }
    }
  }
  if (text.includes('"data"') || text.includes('"binaryData"')) jsonSecretValues(text, values);
  return values;
}

const JSON_DATA_BLOCK = /"(?:data|binaryData)"\s*:\s*\{([^{}]*)\}/g;
const JSON_DATA_ENTRY = /"([\w.-]{1,253})"\s*:\s*"([A-Za-z0-9+/]{4,}={0,2})"/g;

/** The same for a manifest written as JSON (`kubectl get secret -o json`, a List of them). */
function jsonSecretValues(text: string, values: EncodedValue[]): void {
  JSON_DATA_BLOCK.lastIndex = 0;
  for (let block = JSON_DATA_BLOCK.exec(text); block; block = JSON_DATA_BLOCK.exec(text)) {
    const bodyAt = block.index + block[0].indexOf('{') + 1;
    JSON_DATA_ENTRY.lastIndex = 0;
    for (let entry = JSON_DATA_ENTRY.exec(block[1]); entry; entry = JSON_DATA_ENTRY.exec(block[1])) {
      const decoded = decodeBase64Text(entry[2]);
      if (decoded) values.push({ key: entry[1], decoded, offset: bodyAt + entry.index + entry[0].lastIndexOf(entry[2]), encoded: entry[2] });
    }
  }
}

/** A URL component with its percent-escapes decoded; the text as given when it is not valid. */
export function decodeUrlComponent(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A JSON string body's escapes decoded (`\\`, `\/`, `\uXXXX`, `\"`, `\n`…); the text as given when invalid. */
export function unescapeJsonString(text: string): string {
  if (!text.includes('\\')) return text;
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}

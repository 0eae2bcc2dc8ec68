// Decoders: credentials written in an encoding are decoded before they are judged, and a finding still
// points at (and masks) the text as written.
//
// - Kubernetes `Secret` manifests (and templates of them) keep values base64-encoded under `data:`; each is
//   decoded and the decoded text is scanned with every rule, under its key's name.
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

const SECRET_KIND = /^\s*["']?kind["']?\s*:\s*["']?Secret["']?\s*,?\s*$/m;
const DATA_BLOCK = /^([ \t]*)(?:data|binaryData)\s*:\s*$/gm;
const DATA_ENTRY = /^([ \t]+)(["']?)([\w.-]{1,253})\2\s*:\s*(["']?)([A-Za-z0-9+/]{4,}={0,2})\4[ \t]*$/;

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

/**
 * The base64 values under `data:` (and `binaryData:`) of a manifest that declares `kind: Secret`, in YAML
 * or JSON: one per
 * entry, decoded. Entries that do not decode to printable text (certificates in DER, keystores) are left out.
 */
export function kubernetesSecretValues(text: string): EncodedValue[] {
  if (!text.includes('Secret') || !SECRET_KIND.test(text)) return [];
  const values: EncodedValue[] = [];
  DATA_BLOCK.lastIndex = 0;
  for (let block = DATA_BLOCK.exec(text); block; block = DATA_BLOCK.exec(text)) {
    const indent = block[1].length;
    let at = block.index + block[0].length + 1;
    while (at < text.length) {
      const end = text.indexOf('\n', at);
      const line = text.slice(at, end === -1 ? text.length : end);
      const entry = DATA_ENTRY.exec(line);
      if (!entry || entry[1].length <= indent) {
        if (line.trim() && !line.trim().startsWith('#')) break;
      } else {
        const decoded = decodeBase64Text(entry[5]);
        if (decoded) values.push({ key: entry[3], decoded, offset: at + line.lastIndexOf(entry[5]), encoded: entry[5] });
      }
      if (end === -1) break;
      at = end + 1;
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

import { SECRET_RULES, type SecretRule } from './rules.ts';
import { decodeUrlComponent, kubernetesSecretValues, unescapeJsonString } from './decoders.ts';
import { B, CONTEXT_RULES } from './rules/helpers.ts';
import { ASSIGNMENT_KEYWORDS, CONTEXT_KEYWORDS, GENERIC_RULE, detectInContext, execIn, isSecretDataValue } from './generic.ts';
import { INLINE_ALLOW, isPlaceholder, shannonEntropy } from './text-checks.ts';

export interface SecretMatch {
  rule: SecretRule;
  secret: string;
  /** Where the secret starts in the scanned text (a string index). */
  offset: number;
  /** 1-based lines of the secret within the scanned text. */
  startLine: number;
  endLine: number;
}

/** Rules whose pattern reads context rather than a token format; a specific rule wins where both match. */
const LOOSE_RULES = new Set(['generic-secret-assignment', 'url-basic-credentials', 'jwt']);

interface CompiledRule {
  rule: SecretRule;
  pattern: RegExp;
  /** Lowercase keywords, one of which must occur in the text. */
  keywords: string[];
  /** Whether the regex runs on the whole text rather than on the lines around its keywords. */
  whole: boolean;
  /** The keywords' places in KEYWORDS. */
  indices: number[];
}

const alphanumeric = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * A rule runs on the whole text when its matches may reach far from a keyword (multi-line blocks), when it
 * anchors on the start or end of the text, or when a keyword is a word of context its regex does not hold
 * (`telegram` beside a bare token shape), which may stand anywhere in the file. Every other rule runs only
 * on the lines around its keywords.
 */
function needsWholeText(rule: SecretRule): boolean {
  const source = rule.pattern.source;
  if (rule.sample.includes('\n') || /\[\\s\\S\]|\[\\S\\s\]|\[\^\]|(?<![\\[])\^|(?<!\\)\$/.test(source)) return true;
  const literal = alphanumeric(source);
  return rule.keywords.some((k) => !literal.includes(alphanumeric(k)));
}

const COMPILED: CompiledRule[] = SECRET_RULES.filter((rule) => rule.id !== 'generic-secret-assignment')
  .map((rule) => ({
    rule,
    pattern: new RegExp(rule.pattern.source, rule.pattern.flags.includes('g') ? rule.pattern.flags : rule.pattern.flags + 'g'),
    keywords: rule.keywords.map((k) => k.toLowerCase()),
    whole: needsWholeText(rule),
    indices: [] as number[],
  }))
  .sort((a, b) => Number(LOOSE_RULES.has(a.rule.id)) - Number(LOOSE_RULES.has(b.rule.id)));

const SPECIFIC = COMPILED.filter((c) => !LOOSE_RULES.has(c.rule.id));
/**
 * Rules that know a token by its own shape (a prefix, a fixed structure) rather than by what surrounds it.
 * Where a rule that reads a file's syntax (`.netrc` `password`, `.npmrc` `_authToken`, Maven `<password>`)
 * took a value that such a token fills exactly, the token's own rule names it: a GitHub token used as an
 * npm registry password is a GitHub token.
 */
const SHAPED = new Set(COMPILED.filter((c) => c.rule.pattern.source.startsWith(`${B}(?<secret>`)).map((c) => c.rule));
/** A name as the keyed rules spell it: words joined by underscores (`twilio-auth-token`, `dd.api.key` → `dd_api_key`). */
const underscored = (key: string) => key.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
const LOOSE = COMPILED.filter((c) => LOOSE_RULES.has(c.rule.id));

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function lineText(text: string, starts: number[], line: number): string {
  const end = line < starts.length ? starts[line] - 1 : text.length;
  return text.slice(starts[line - 1], end);
}

// ---------------------------------------------------------------------------------------------------------
// keywords: one pass over the text for all of them

const KEYWORDS = [
  ...new Set([...SECRET_RULES.flatMap((r) => r.keywords.map((k) => k.toLowerCase())), ...ASSIGNMENT_KEYWORDS, ...CONTEXT_KEYWORDS]),
].sort((a, b) => b.length - a.length);
/**
 * The keyword index: a keyword of four or more characters is found by its first four (hashed into a table
 * of buckets), a shorter one by all of its characters; a position whose first two characters start no
 * keyword is passed over after one lookup.
 */
const fold = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);
const PAIRS = new Uint8Array(128 * 128);
const QUAD = new Int32Array(1 << 16);
const QUAD_BUCKETS: number[][] = [];
/** Two-character keywords by their pair (index + 1); three-character ones hashed into buckets. */
const SHORT2 = new Int32Array(128 * 128);
const TRI = new Int32Array(1 << 16);
const TRI_BUCKETS: number[][] = [];
/** Keywords that cannot be indexed by ASCII characters: searched for on their own. */
const ODD_KEYWORDS: number[] = [];
const quadHash = (a: number, b: number, c: number, d: number) => (((a * 31 + b) * 31 + c) * 31 + d) & 0xffff;
const triHash = (a: number, b: number, c: number) => ((a * 31 + b) * 31 + c) & 0xffff;
KEYWORDS.forEach((keyword, index) => {
  const codes = [...keyword].map((ch) => ch.charCodeAt(0));
  if (keyword.length < 2 || codes.some((c) => c >= 128 || c !== fold(c))) {
    ODD_KEYWORDS.push(index);
    return;
  }
  PAIRS[(codes[0] << 7) | codes[1]] = 1;
  if (codes.length === 2) {
    SHORT2[(codes[0] << 7) | codes[1]] = index + 1;
    return;
  }
  if (codes.length === 3) {
    const slot = triHash(codes[0], codes[1], codes[2]);
    if (!TRI[slot]) TRI[slot] = TRI_BUCKETS.push([]);
    TRI_BUCKETS[TRI[slot] - 1].push(index);
    return;
  }
  const slot = quadHash(codes[0], codes[1], codes[2], codes[3]);
  if (!QUAD[slot]) QUAD[slot] = QUAD_BUCKETS.push([]);
  QUAD_BUCKETS[QUAD[slot] - 1].push(index);
});
/** Positions kept per keyword; a keyword found more often makes its rules read the whole text. */
const MAX_POSITIONS = 2048;

/** Where each keyword occurs in a text (case-insensitive). */
export class KeywordHits {
  /** Positions by keyword index; undefined where it does not occur. */
  readonly positions: (number[] | undefined)[] = new Array(KEYWORDS.length);
  readonly text: string;

  constructor(text: string) {
    this.text = text;
    const n = text.length;
    let c0 = fold(text.charCodeAt(0));
    let c1 = n > 1 ? fold(text.charCodeAt(1)) : 0;
    let c2 = n > 2 ? fold(text.charCodeAt(2)) : 0;
    for (let i = 0; i < n - 1; i++) {
      const c3 = i + 3 < n ? fold(text.charCodeAt(i + 3)) : 0;
      if (c0 < 128 && c1 < 128 && PAIRS[(c0 << 7) | c1]) {
        const pair = SHORT2[(c0 << 7) | c1];
        if (pair) this.#add(pair - 1, i);
        if (c2 < 128 && i + 2 < n) {
          const tri = TRI[triHash(c0, c1, c2)];
          if (tri) this.#check(TRI_BUCKETS[tri - 1], i);
          if (c3 < 128 && i + 3 < n) {
            const quad = QUAD[quadHash(c0, c1, c2, c3)];
            if (quad) this.#check(QUAD_BUCKETS[quad - 1], i);
          }
        }
      }
      c0 = c1;
      c1 = c2;
      c2 = c3;
    }
    if (ODD_KEYWORDS.length) {
      const lower = text.toLowerCase();
      for (const index of ODD_KEYWORDS) {
        const keyword = KEYWORDS[index];
        for (let at = lower.indexOf(keyword); at !== -1; at = lower.indexOf(keyword, at + 1)) this.#add(index, at);
      }
    }
  }

  #check(bucket: number[], at: number): void {
    const text = this.text;
    for (const index of bucket) {
      const keyword = KEYWORDS[index];
      const length = keyword.length;
      if (at + length > text.length) continue;
      let k = 0;
      for (; k < length; k++) if (fold(text.charCodeAt(at + k)) !== keyword.charCodeAt(k)) break;
      if (k === length) this.#add(index, at);
    }
  }

  #add(index: number, at: number): void {
    const list = (this.positions[index] ??= []);
    if (list.length <= MAX_POSITIONS) list.push(at);
  }

  has = (keyword: string): boolean => this.positions[KEYWORD_INDEX.get(keyword) ?? -1] !== undefined;

  /** Whether any of the keywords (by index) occurs. */
  any(indices: number[]): boolean {
    for (const index of indices) if (this.positions[index] !== undefined) return true;
    return false;
  }

  /**
   * The stretches of text, whole lines, within `margin` characters of any of the keywords, merged; or
   * undefined when they would cover most of the text anyway (then read all of it).
   */
  windows(keywords: string[], margin: number): [number, number][] | undefined {
    const text = this.text;
    const at: number[] = [];
    for (const keyword of keywords) {
      const list = this.positions[KEYWORD_INDEX.get(keyword) ?? -1];
      if (!list) continue;
      if (list.length > MAX_POSITIONS) return undefined;
      for (const p of list) at.push(p);
    }
    if (!at.length) return [];
    at.sort((a, b) => a - b);
    const windows: [number, number][] = [];
    let covered = 0;
    for (const p of at) {
      const last = windows.at(-1);
      if (last && p - margin <= last[1]) {
        if (p + margin > last[1]) {
          const end = text.indexOf('\n', Math.min(text.length, p + margin));
          covered += (end === -1 ? text.length : end) - last[1];
          last[1] = end === -1 ? text.length : end;
        }
        continue;
      }
      const start = text.lastIndexOf('\n', Math.max(0, p - margin)) + 1;
      const endAt = text.indexOf('\n', Math.min(text.length, p + margin));
      const end = endAt === -1 ? text.length : endAt;
      if (last && start <= last[1]) {
        covered += end - last[1];
        last[1] = end;
      } else {
        windows.push([start, end]);
        covered += end - start;
      }
    }
    return covered * 2 > text.length ? undefined : windows;
  }
}

const KEYWORD_INDEX = new Map(KEYWORDS.map((k, i) => [k, i]));
for (const compiled of COMPILED) compiled.indices = compiled.keywords.map((k) => KEYWORD_INDEX.get(k)!);
const WINDOW_MARGIN = 512;

interface Found {
  rule: SecretRule;
  secret: string;
  offset: number;
}

/**
 * Finds credentials in one text. One pass finds which keywords occur and where; a rule's regex runs only
 * when one of its keywords occurs, on the lines around them; then each match must clear the rule's entropy
 * floor and the placeholder and inline-allow checks. The context detectors (assignments, connection
 * strings, config files) and the decoders (Kubernetes Secret data) run after the token rules, so a
 * specific rule wins where both match. `filePath`, when given, lets the detectors read the file's syntax.
 */
export function detectSecrets(text: string, filePath?: string): SecretMatch[] {
  return detect(text, filePath, true, true);
}

/**
 * What to hide in text shown to people (snippets, fix titles, logs): as detectSecrets, but a token whose
 * checksum or structure fails its rule's check is still hidden. A scan leaves it out as not a credential;
 * masking errs the other way, since a mistyped or truncated token may still be most of a real one.
 */
export function credentialsToMask(text: string): SecretMatch[] {
  return detect(text, undefined, true, false);
}

function detect(text: string, filePath: string | undefined, decode: boolean, checkFormats: boolean): SecretMatch[] {
  if (!text) return [];
  const hits = new KeywordHits(text);
  const taken: [number, number][] = [];
  const found: Found[] = [];
  /** Where a token's own shape displaced a rule that reads a file's syntax: that type stands. */
  const displaced = new Set<number>();
  const free = (offset: number, end: number) => !taken.some(([s, e]) => offset < e && s < end);
  const accept = (rule: SecretRule, secret: string, offset: number) => {
    taken.push([offset, offset + secret.length]);
    found.push({ rule, secret, offset });
  };
  const displace = (rule: SecretRule, secret: string, offset: number) => {
    const index = found.findIndex((f) => f.offset === offset && f.secret === secret && !SHAPED.has(f.rule) && !CONTEXT_RULES.has(f.rule));
    if (index === -1) return;
    const { validate } = rule as SecretRule & { validate?: (secret: string) => boolean };
    if (isPlaceholder(secret) || (checkFormats && validate !== undefined && !validate(secret))) return;
    if (shannonEntropy(secret) >= rule.entropy) {
      found[index] = { rule, secret, offset };
      displaced.add(offset);
    }
  };
  /**
   * A value the context detectors found under a name, offered to the token rules as `name=value`: a rule
   * that knows the provider's name (`TWILIO_AUTH_TOKEN=…`) names it wherever the file's syntax put the name
   * (an XML element, a Terraform variable, `settings["…"]`, a Kubernetes key).
   */
  const named = (key: string, value: string): SecretRule | undefined => {
    for (const name of new Set([key, underscored(key)])) {
      if (!name) continue;
      const inner = detect(`${name}=${value}`, undefined, false, checkFormats);
      const hit = inner.find((m) => !LOOSE_RULES.has(m.rule.id) && m.secret === value);
      if (hit) return hit.rule;
    }
    return undefined;
  };
  const runRules = (rules: CompiledRule[]) => {
    for (const compiled of rules) {
      const { rule, pattern, keywords } = compiled;
      if (!hits.any(compiled.indices)) continue;
      execIn(pattern, text, compiled.whole ? undefined : hits.windows(keywords, WINDOW_MARGIN), (m, base) => {
        const secret = m.groups?.secret ?? m[0];
        const offset = base + m.index + (m.groups?.secret !== undefined ? m[0].indexOf(secret) : 0);
        if (!free(offset, offset + secret.length)) {
          if (SHAPED.has(rule)) displace(rule, secret, offset);
          return;
        }
        const { validate } = rule as SecretRule & { validate?: (secret: string) => boolean };
        const turnedDown =
          isPlaceholder(secret) ||
          (/%[0-9A-Fa-f]{2}/.test(secret) && isPlaceholder(decodeUrlComponent(secret))) ||
          (checkFormats && validate !== undefined && !validate(secret));
        // A value a token rule knows the shape of and turned down (a placeholder, a failed checksum) is
        // not offered to the context detectors as a password either; one under its entropy floor is
        // (a rule's floor is for its own format, and a hex key is still a key).
        if (turnedDown) taken.push([offset, offset + secret.length]);
        else if (shannonEntropy(secret.replace(/\s+/g, '')) >= rule.entropy) accept(rule, secret, offset);
      });
    }
  };
  runRules(SPECIFIC);
  if (decode && hits.has('secret')) {
    for (const value of kubernetesSecretValues(text)) {
      if (!free(value.offset, value.offset + value.encoded.length)) continue;
      const oneLine = !value.decoded.includes('\n');
      const inner = oneLine ? `${value.key}=${value.decoded}` : value.decoded;
      const [first] = detect(inner, undefined, false, checkFormats);
      // A key written `twilio-auth-token` names its provider as `TWILIO_AUTH_TOKEN` does.
      let rule = (!first || LOOSE_RULES.has(first.rule.id)) && oneLine ? (named(value.key, value.decoded) ?? first?.rule) : first?.rule;
      // Everything a Secret holds is secret: a value under any name but a name for who or where
      // (`username`, `host`, `port`) is judged as a password.
      if (!rule && oneLine && isSecretDataValue(value.key, value.decoded, !value.plain)) rule = GENERIC_RULE;
      // Judged in its decoded form: the encoded text is not judged again as a value of its own.
      if (rule) accept(rule, value.encoded, value.offset);
      else if (!value.plain) taken.push([value.offset, value.offset + value.encoded.length]);
    }
  }
  runRules(LOOSE);
  for (const match of detectInContext(text, filePath, hits.has, (keywords, margin) => hits.windows(keywords, margin))) {
    if (!free(match.offset, match.offset + match.secret.length)) {
      // A loose rule (a bare JWT) took the value; the name it is written under may say more (a JWT as a
      // `client-secret` in an HTML `<meta>`, a Markdown table, a notebook string).
      const index = decode && match.key && !displaced.has(match.offset) ? found.findIndex((f) => f.offset === match.offset && f.secret === match.secret && LOOSE_RULES.has(f.rule.id)) : -1;
      const rule = index === -1 ? undefined : named(match.key!, unescapeJsonString(match.secret));
      if (rule) found[index] = { ...found[index], rule };
      continue;
    }
    const rule = decode && match.key && match.rule.id === 'generic-secret-assignment' ? named(match.key, unescapeJsonString(match.secret)) : undefined;
    accept(rule ?? match.rule, match.secret, match.offset);
  }
  if (!found.length) return [];
  const starts = lineStarts(text);
  const matches: SecretMatch[] = [];
  for (const { rule, secret, offset } of found) {
    const startLine = lineOf(starts, offset);
    if (INLINE_ALLOW.test(lineText(text, starts, startLine))) continue;
    matches.push({ rule, secret, offset, startLine, endLine: lineOf(starts, Math.max(offset, offset + secret.length - 1)) });
  }
  return matches.sort((a, b) => a.startLine - b.startLine || a.offset - b.offset);
}

/** Every keyword any rule needs, for comparisons with plain keyword search tools. */
export const ALL_KEYWORDS = KEYWORDS;

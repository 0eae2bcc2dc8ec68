// Where things are in a TOML file's text, so a fixer can change one value and leave every comment and
// blank line as it was (a TOML library re-serializes the whole file). The text is assumed valid: callers
// parse it with smol-toml first.

/** A string literal in a value, quotes included in [start, end). */
export interface TomlString {
  start: number;
  end: number;
  content: string;
  /** The key it is the value of inside an inline table (`{ version = "^2.0" }`), else null. */
  innerKey: string | null;
  /** A one-line string without escapes, whose content can be replaced as it stands. */
  plain: boolean;
}

/** A `key = value` line of a table. */
export interface TomlAssignment {
  /** The table's dotted name, quotes removed (`tool.poetry.dependencies`). */
  table: string;
  /** Which header of the file opened the table, counting from 0; -1 before the first. */
  tableIndex: number;
  /** Dotted key, quotes removed. */
  key: string;
  lineStart: number;
  valueStart: number;
  valueEnd: number;
  /** Just past the line break ending the assignment (its comment included). */
  end: number;
  strings: TomlString[];
}

export function scanTomlAssignments(text: string): TomlAssignment[] {
  return new Scanner(text).scan();
}

class Scanner {
  readonly #text: string;
  #at = 0;
  #strings: TomlString[] = [];

  constructor(text: string) {
    this.#text = text;
  }

  scan(): TomlAssignment[] {
    const assignments: TomlAssignment[] = [];
    let table = '';
    let tableIndex = -1;
    const text = this.#text;
    while (this.#at < text.length) {
      const lineStart = this.#at;
      this.#skipBlank();
      const ch = text[this.#at];
      if (ch === undefined) break;
      if (ch === '\n' || ch === '\r' || ch === '#') {
        this.#toLineEnd();
        continue;
      }
      if (ch === '[') {
        const close = text.startsWith('[[', this.#at) ? ']]' : ']';
        const end = text.indexOf(close, this.#at);
        table = this.#dottedName(text.slice(this.#at + close.length, end));
        tableIndex++;
        this.#at = end + close.length;
        this.#toLineEnd();
        continue;
      }
      const key = this.#key();
      this.#skipBlank();
      this.#at++; // '='
      this.#skipBlank();
      this.#strings = [];
      const valueStart = this.#at;
      this.#value(null);
      const valueEnd = this.#at;
      this.#toLineEnd();
      assignments.push({ table, tableIndex, key, lineStart, valueStart, valueEnd, end: this.#at, strings: this.#strings });
    }
    return assignments;
  }

  #dottedName(raw: string): string {
    return raw
      .split(/\.(?=(?:[^"']*["'][^"']*["'])*[^"']*$)/)
      .map((part) => part.trim().replace(/^(["'])(.*)\1$/, '$2'))
      .join('.');
  }

  #key(): string {
    const start = this.#at;
    while (this.#at < this.#text.length && this.#text[this.#at] !== '=') {
      const ch = this.#text[this.#at];
      if (ch === '"' || ch === "'") this.#string(null, false);
      else this.#at++;
    }
    return this.#dottedName(this.#text.slice(start, this.#at).trim());
  }

  #value(innerKey: string | null): void {
    const text = this.#text;
    const ch = text[this.#at];
    if (ch === '"' || ch === "'") {
      this.#string(innerKey);
    } else if (ch === '[') {
      this.#at++;
      for (;;) {
        this.#skipSpaceAndComments();
        if (text[this.#at] === ']') break;
        this.#value(null);
        this.#skipSpaceAndComments();
        if (text[this.#at] === ',') this.#at++;
      }
      this.#at++;
    } else if (ch === '{') {
      this.#at++;
      for (;;) {
        this.#skipBlank();
        if (text[this.#at] === '}') break;
        const key = this.#key();
        this.#at++; // '='
        this.#skipBlank();
        this.#value(key);
        this.#skipBlank();
        if (text[this.#at] === ',') this.#at++;
      }
      this.#at++;
    } else {
      while (this.#at < text.length && !/[,\]}\r\n#]/.test(text[this.#at])) this.#at++;
      while (this.#at > 0 && /[ \t]/.test(text[this.#at - 1])) this.#at--;
    }
  }

  #string(innerKey: string | null, record = true): void {
    const text = this.#text;
    const start = this.#at;
    const quote = text[start];
    const triple = text.startsWith(quote.repeat(3), start);
    const delimiter = triple ? quote.repeat(3) : quote;
    let at = start + delimiter.length;
    let escaped = false;
    for (;;) {
      if (at >= text.length) break;
      if (quote === '"' && text[at] === '\\') {
        escaped = true;
        at += 2;
        continue;
      }
      if (text.startsWith(delimiter, at)) {
        // A closing """ may be followed by up to two more quotes that belong to the content.
        while (triple && text[at + delimiter.length] === quote) at++;
        break;
      }
      at++;
    }
    const end = Math.min(at + delimiter.length, text.length);
    this.#at = end;
    if (!record) return;
    this.#strings.push({
      start,
      end,
      content: text.slice(start + delimiter.length, end - delimiter.length),
      innerKey,
      plain: !triple && !escaped,
    });
  }

  #skipBlank(): void {
    while (this.#text[this.#at] === ' ' || this.#text[this.#at] === '\t') this.#at++;
  }

  #skipSpaceAndComments(): void {
    for (;;) {
      const ch = this.#text[this.#at];
      if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n') this.#at++;
      else if (ch === '#') while (this.#at < this.#text.length && this.#text[this.#at] !== '\n') this.#at++;
      else return;
    }
  }

  #toLineEnd(): void {
    const next = this.#text.indexOf('\n', this.#at);
    this.#at = next === -1 ? this.#text.length : next + 1;
  }
}

/**
 * JSON with comments and trailing commas (JSONC, as bun.lock and deno.json are written) made plain JSON:
 * comments and commas before a closing bracket are dropped outside strings; everything else is kept.
 */
export function stripJsonc(text: string): string {
  let out = '';
  let pendingComma = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      out += pendingComma + text.slice(i, end + 1);
      pendingComma = '';
      i = end;
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      i--;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
    } else if (ch === ',') {
      out += pendingComma;
      pendingComma = ',';
    } else if (ch === '}' || ch === ']') {
      pendingComma = '';
      out += ch;
    } else if (/\s/.test(ch)) {
      out += ch;
    } else {
      out += pendingComma + ch;
      pendingComma = '';
    }
  }
  return out + pendingComma;
}

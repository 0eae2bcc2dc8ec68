// JSON files rewritten the way npm writes them: parsed, changed, and serialized again with the file's
// own indentation, line breaks and final newline.
import { isJsonObject, type JsonObject } from '../../../inventory/extractors/extractor.ts';

export interface JsonLayout {
  indent: string;
  newline: string;
  finalNewline: boolean;
  bom: boolean;
}

export function jsonLayout(text: string): JsonLayout {
  const indent = /^[ \t]+(?=["}\]])/m.exec(text)?.[0] ?? '';
  return { indent, newline: text.includes('\r\n') ? '\r\n' : '\n', finalNewline: /\n$/.test(text), bom: text.startsWith('\uFEFF') };
}

export function formatJson(value: unknown, layout: JsonLayout): string {
  const body = JSON.stringify(value, null, layout.indent);
  const lines = layout.newline === '\n' ? body : body.replace(/\n/g, layout.newline);
  return (layout.bom ? '\uFEFF' : '') + lines + (layout.finalNewline ? layout.newline : '');
}

export { isJsonObject, type JsonObject } from '../../../inventory/extractors/extractor.ts';

/** Parses a JSON object; null when the text is not one. */
export function parseJsonObject(text: string): JsonObject | null {
  try {
    const value: unknown = JSON.parse(text.replace(/^\uFEFF/, ''));
    return isJsonObject(value) ? value : null;
  } catch {
    return null;
  }
}

import type { CompiledQuery } from 'kysely';

// Text from a scanned repository may hold a NUL (past the first bytes a binary check reads) or, once decoded,
// a lone UTF-16 surrogate. PostgreSQL refuses both in a text value ("invalid byte sequence for encoding
// UTF8: 0x00"), failing the whole statement; SQLite would keep what PostgreSQL cannot. Every parameter of
// every statement passes here on its way to either database, so one stored text reads the same on both.

const REPLACEMENT = '\uFFFD';

/** The text with each NUL and each lone surrogate replaced by U+FFFD; the same string when it has neither. */
export function wellFormedText(text: string): string {
  const wellFormed = text.isWellFormed() ? text : text.toWellFormed();
  return wellFormed.includes('\0') ? wellFormed.replaceAll('\0', REPLACEMENT) : wellFormed;
}

function safeValue(value: unknown): unknown {
  if (typeof value === 'string') return wellFormedText(value);
  if (Array.isArray(value)) return value.map(safeValue);
  return value;
}

const needsChange = (value: unknown): boolean =>
  typeof value === 'string' ? value.includes('\0') || !value.isWellFormed() : Array.isArray(value) && value.some(needsChange);

/** The query with its text parameters made storable; the query itself when none needs it (the usual case). */
export function withWellFormedText(query: CompiledQuery): CompiledQuery {
  if (!query.parameters.some(needsChange)) return query;
  return { ...query, parameters: query.parameters.map(safeValue) };
}

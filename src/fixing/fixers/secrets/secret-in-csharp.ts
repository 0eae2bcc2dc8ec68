import { envNameForRule, envNameForTarget } from './env-names.ts';
import type { LocatedSecret } from './secret-location.ts';
import { applyEdits, lineStarts, type TextEdit } from '../shared/text-edits.ts';

// C# has no grammar in the installed ast-grep packages, so its literal is found in the text of the
// secret's line: a regular "…" or verbatim @"…" string. Interpolated ($"…") and raw ("""…""") strings
// are left alone, as is anything the line does not make plain.

export type CSharpSecretResult = { kind: 'environment'; text: string; name: string } | { kind: 'refused'; reason: string };

const LITERAL = /@"(?:[^"]|"")*"|"(?:[^"\\\r\n]|\\.)*"/g;

export function moveSecretInCSharp(text: string, secret: LocatedSecret): CSharpSecretResult {
  const starts = lineStarts(text);
  const lineStart = starts[secret.startLine - 1];
  const lineEnd = secret.startLine < starts.length ? starts[secret.startLine] - 1 : text.length;
  const line = text.slice(lineStart, lineEnd);
  const from = secret.start - lineStart;
  const to = secret.end - lineStart;
  const literal = [...line.matchAll(LITERAL)].find((m) => m.index <= from && to <= m.index + m[0].length);
  if (!literal) return { kind: 'refused', reason: 'the secret is not in a one-line C# string literal' };
  const before = line.slice(0, literal.index);
  if (/\$$|"""?$/.test(before)) {
    return { kind: 'refused', reason: 'the secret is in an interpolated or raw C# string' };
  }
  if (/^\s*(?:\[|case\b)/.test(line) || /\[[A-Za-z_.]+\($/.test(before.trimEnd())) {
    return { kind: 'refused', reason: 'the secret is where C# needs a constant' };
  }

  const edits: TextEdit[] = [];
  const constant = /\bconst\b/.exec(before);
  if (constant) {
    // A field constant can become `static readonly`; a local one could be anything, so it is left alone.
    if (!/\b(?:public|private|protected|internal)\b/.test(before.slice(0, constant.index))) {
      return { kind: 'refused', reason: 'the secret is a C# constant the fixer cannot tell to be a field' };
    }
    edits.push({ start: lineStart + constant.index, end: lineStart + constant.index + 'const'.length, text: 'static readonly' });
  }
  const target = /([A-Za-z_][\w.]*)\s*(?:=|:)\s*$/.exec(before);
  const name = (target && envNameForTarget(target[1])) ?? envNameForRule(secret.rule.id);
  const environment = /^\s*(?:global\s+)?using\s+System\s*;/m.test(text) ? 'Environment' : 'System.Environment';
  edits.push({
    start: lineStart + literal.index,
    end: lineStart + literal.index + literal[0].length,
    text: `${environment}.GetEnvironmentVariable("${name}")`,
  });
  return { kind: 'environment', text: applyEdits(text, edits), name };
}

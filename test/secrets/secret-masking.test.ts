import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { snippetOf } from '../../src/scanning/match-identity.ts';
import { maskSecretsIn } from '../../src/scanning/secrets/mask-text.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { maskDiff } from '../../src/fixing/diff-mask.ts';
import { positiveSample } from '../support/secret-samples.ts';

const MULTI_LINE = SECRET_RULES.filter((rule) => rule.sample.includes('\n'));

/** The key material of a sample: every line that is not a BEGIN/END marker (`-----BEGIN`, SSH2's `---- BEGIN`), an armor header or a blank line. */
function keyLines(sample: string): string[] {
  return sample.split('\n').filter((line) => line.length >= 8 && !/^-{4,5} ?(?:BEGIN|END) /.test(line) && !/^[\w-]+: /.test(line));
}

function unifiedDiff(lines: string[], marker: string): string {
  return ['diff --git a/keys/id b/keys/id', '--- a/keys/id', '+++ b/keys/id', `@@ -1,${lines.length} +0,0 @@`, ...lines.map((l) => marker + l), ''].join('\n');
}

describe('masking credentials in diffs and excerpts', () => {
  test('there are multi-line rules to check', () => assert.ok(MULTI_LINE.length >= 3));

  for (const rule of MULTI_LINE) {
    for (const marker of ['-', '+', ' ']) {
      test(`${rule.id}: a key whose lines all start with ${JSON.stringify(marker)} is masked in place`, () => {
        const sample = positiveSample(rule, 11);
        const diff = unifiedDiff(sample.split('\n'), marker);
        const masked = maskDiff(diff);
        for (const line of keyLines(sample)) assert.ok(!masked.includes(line), `${line} shows in\n${masked}`);
        assert.equal(masked.split('\n').length, diff.split('\n').length, 'the diff keeps its lines');
        for (const [i, line] of masked.split('\n').entries()) if (i >= 4 && line) assert.equal(line[0], marker, 'each line keeps its marker');
      });
    }

    test(`${rule.id}: a key indented inside code and changed in a diff is masked on both sides`, () => {
      const removed = positiveSample(rule, 12).split('\n');
      const added = positiveSample(rule, 13).split('\n');
      const diff = ['@@ -1,9 +1,9 @@', ' KEY = """', ...removed.map((l) => `-${l}`), ...added.map((l) => `+${l}`), ' """', ''].join('\n');
      const masked = maskSecretsIn(diff);
      for (const line of [...keyLines(removed.join('\n')), ...keyLines(added.join('\n'))]) assert.ok(!masked.includes(line), `${line} shows`);
    });
  }

  test('a key whose body alone is replaced (markers kept as context) is masked on the side that held it', () => {
    for (const rule of MULTI_LINE) {
      const lines = positiveSample(rule, 31).split('\n');
      const diff = ['@@ -1,6 +1,4 @@', ' ```', ` ${lines[0]}`, ...lines.slice(1, -1).map((l) => `-${l}`), '+<redacted>', ` ${lines.at(-1)}`, ' ```', ''].join('\n');
      const masked = maskDiff(diff);
      for (const line of keyLines(lines.join('\n'))) assert.ok(!masked.includes(line), `${rule.id}: ${line} shows in\n${masked}`);
      assert.ok(masked.includes('+<redacted>'));
    }
  });

  test('single-line credentials in a diff are masked wherever they occur', () => {
    const key = positiveSample(SECRET_RULES.find((r) => r.id === 'github-pat')!, 3);
    const masked = maskDiff(`@@ -1 +1 @@\n-TOKEN = "${key}"\n+TOKEN = os.environ["TOKEN"]\n`);
    assert.ok(!masked.includes(key));
    assert.match(masked, /^-TOKEN = "ghp_\*{8}..?"$/m);
  });

  test('an excerpt inside a key block whose BEGIN line is above it and END line below it shows none of its lines', () => {
    for (const rule of MULTI_LINE.filter((r) => /PRIVATE KEY/.test(r.sample))) {
      const key = positiveSample(rule, 41);
      const lines = ['import os', '', 'KEY = """', ...key.split('\n'), '"""', 'os.system(input())'];
      const text = lines.join('\n');
      const begin = lines.findIndex((l) => l.includes('-----BEGIN'));
      const end = lines.findIndex((l) => l.includes('-----END'));
      const material = keyLines(key);
      for (let line = begin + 2; line < end + 1; line++) {
        // A code or model finding on a key line: its BEGIN line is above the excerpt.
        const excerpt = snippetOf(text, line + 1, line + 1) ?? '';
        for (const kept of material) assert.ok(!excerpt.includes(kept.slice(0, 16)), `${rule.id}, line ${line + 1}: ${kept} shows in\n${excerpt}`);
        const windowed = snippetOf(text, line + 1, line + 5) ?? '';
        for (const kept of material) assert.ok(!windowed.includes(kept.slice(0, 16)), `${rule.id}, lines ${line + 1}-${line + 5}: ${kept} shows in\n${windowed}`);
        // A secrets finding reporting another credential on that line.
        const own = snippetOf(text, line + 1, line + 1, ['not-in-the-text']) ?? '';
        for (const kept of material) assert.ok(!own.includes(kept.slice(0, 16)), `${rule.id}, secret on line ${line + 1}: ${kept} shows in\n${own}`);
      }
      assert.equal(snippetOf(text, lines.length, lines.length), 'os.system(input())', 'lines after the block are shown as they are');
    }
  });

  test('a malformed key (the detector does not recognize it) still shows no body line inside its markers', () => {
    const body = Array.from({ length: 12 }, (_, i) => `QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo${i}xMjM0NTY3ODkwYWJjZGVmZ2hpams=`);
    const text = ['x = 1', '-----BEGIN RSA PRIVATE KEY-----', ...body, '-----END RSA PRIVATE KEY-----', 'y = 2'].join('\n');
    const excerpt = snippetOf(text, 8, 12)!;
    for (const line of body) assert.ok(!excerpt.includes(line.slice(0, 16)), excerpt);
    assert.equal(excerpt.split('\n').length, 5);
    assert.equal(snippetOf(text, 1, 1), 'x = 1');
  });

  test('an excerpt that starts inside a longer key block never shows its material', () => {
    for (const rule of MULTI_LINE) {
      const sample = positiveSample(rule, 21);
      const body = `line one\nline two\nKEY = """\n${sample}\n${keyLines(positiveSample(rule, 22)).join('\n')}\n"""\n`;
      // A finding that names only the first lines of the block, as a code rule's match may.
      const excerpt = snippetOf(body, 3, 4) ?? '';
      for (const line of keyLines(sample)) assert.ok(!excerpt.includes(line), `${rule.id}: ${line} shows in ${excerpt}`);
      const own = snippetOf(body, 4, 4 + sample.split('\n').length - 1, []) ?? '';
      for (const line of keyLines(sample)) assert.ok(!own.includes(line), `${rule.id}: ${line} shows in ${own}`);
    }
  });
});

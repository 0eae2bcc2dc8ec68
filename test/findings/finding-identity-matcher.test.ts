import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { matchFindings, occurrenceIndexes, textSimilarity, type DetectedIdentity, type StoredIdentity } from '../../src/core/finding-identity.ts';
import { firstCallee, normalizeMatch, snippetOf } from '../../src/scanning/match-identity.ts';

const RULE = 'python.lang.ssrf.outbound-request';

function stored(id: string, overrides: Partial<StoredIdentity> = {}): StoredIdentity {
  return { id, checkId: RULE, filePath: 'app.py', matchHash: `h-${id}`, fingerprint: `fp-${id}`, anchor: null, startLine: 1, snippet: null, ...overrides };
}

function detected(overrides: Partial<DetectedIdentity> = {}): DetectedIdentity {
  return { checkId: RULE, filePath: 'app.py', matchHash: 'h-new', fingerprint: 'fp-new', anchor: null, startLine: 1, snippet: null, ...overrides };
}

describe('matchFindings', () => {
  test('the same match hash is the same finding wherever its line moved', () => {
    const result = matchFindings([stored('a', { matchHash: 'h1', startLine: 10 })], [detected({ matchHash: 'h1', startLine: 42 })]);
    assert.deepEqual(result, ['a']);
  });

  test('identical matches in one file pair in line order, one to one', () => {
    const olds = [stored('second', { matchHash: 'h', startLine: 20 }), stored('first', { matchHash: 'h', startLine: 5 })];
    const news = [detected({ matchHash: 'h', startLine: 31 }), detected({ matchHash: 'h', startLine: 8 }), detected({ matchHash: 'h', startLine: 50 })];
    assert.deepEqual(matchFindings(olds, news), ['second', 'first', undefined]);
  });

  test('another rule or another file is another finding', () => {
    const olds = [stored('a', { matchHash: 'h' })];
    assert.deepEqual(matchFindings(olds, [detected({ matchHash: 'h', checkId: 'other.rule' })]), [undefined]);
    assert.deepEqual(matchFindings(olds, [detected({ matchHash: 'h', filePath: 'other.py' })]), [undefined]);
  });

  test('a renamed file carries its findings to the new path', () => {
    const olds = [stored('a', { matchHash: 'h', filePath: 'old/app.py' })];
    const news = [detected({ matchHash: 'h', filePath: 'new/app.py' })];
    assert.deepEqual(matchFindings(olds, news), [undefined]);
    assert.deepEqual(matchFindings(olds, news, new Map([['old/app.py', 'new/app.py']])), ['a']);
  });

  test('a changed match keeps its identity through the same anchor, the most similar first', () => {
    const olds = [
      stored('far', { anchor: 'requests.get', startLine: 3, snippet: 'requests.get(other_url, headers=h)' }),
      stored('near', { anchor: 'requests.get', startLine: 40, snippet: 'requests.get(url, timeout=5)' }),
    ];
    const news = [detected({ anchor: 'requests.get', startLine: 41, snippet: 'requests.get(url, timeout=10)' })];
    assert.deepEqual(matchFindings(olds, news), ['near']);
  });

  test('the same call on code that shares little text is not carried over', () => {
    const olds = [stored('a', { anchor: 'requests.get', snippet: '    return requests.get(url, timeout=5).text' })];
    const news = [detected({ anchor: 'requests.get', snippet: '    payload = requests.get(build_webhook_target(account.settings)).json()' })];
    assert.deepEqual(matchFindings(olds, news), [undefined]);
  });

  test('equally similar candidates go to the nearest line', () => {
    const olds = [stored('top', { anchor: 'eval', startLine: 2 }), stored('bottom', { anchor: 'eval', startLine: 90 })];
    const news = [detected({ anchor: 'eval', startLine: 85 })];
    assert.deepEqual(matchFindings(olds, news), ['bottom']);
  });

  test('a different anchor (another call) never carries identity over', () => {
    const olds = [stored('a', { anchor: 'os.system', snippet: 'os.system(cmd)' })];
    const news = [detected({ anchor: 'subprocess.call', snippet: 'subprocess.call(cmd, shell=True)' })];
    assert.deepEqual(matchFindings(olds, news), [undefined]);
  });

  test('a detection without an anchor matches only exactly', () => {
    assert.deepEqual(matchFindings([stored('a', { anchor: null })], [detected({ anchor: null })]), [undefined]);
  });

  test('an exact match wins over an anchor match for the same stored finding', () => {
    const olds = [stored('a', { matchHash: 'h1', anchor: 'requests.get', startLine: 10 })];
    const news = [
      detected({ matchHash: 'h2', anchor: 'requests.get', startLine: 10 }),
      detected({ matchHash: 'h1', anchor: 'requests.get', startLine: 30 }),
    ];
    assert.deepEqual(matchFindings(olds, news), [undefined, 'a']);
  });

  test('rows stored before match hashes are recognized by the engine fingerprint', () => {
    const olds = [stored('legacy', { matchHash: null, fingerprint: 'engine-fp' })];
    assert.deepEqual(matchFindings(olds, [detected({ fingerprint: 'engine-fp' })]), ['legacy']);
    assert.deepEqual(matchFindings(olds, [detected({ fingerprint: 'other-fp' })]), [undefined]);
  });
});

describe('occurrenceIndexes', () => {
  test('numbers the copies of one match in a file in line order', () => {
    const list = [
      detected({ matchHash: 'h', startLine: 30 }),
      detected({ matchHash: 'h', startLine: 10 }),
      detected({ matchHash: 'other', startLine: 20 }),
      detected({ matchHash: 'h', filePath: 'b.py', startLine: 1 }),
    ];
    assert.deepEqual(occurrenceIndexes(list), [1, 0, 0, 0]);
  });
});

describe('match normalization', () => {
  test('whitespace, line wrapping and trailing commas do not change a match', () => {
    assert.equal(normalizeMatch('requests.get(url, timeout=5)'), normalizeMatch('requests.get(\n    url,\n    timeout=5,\n)'));
    assert.notEqual(normalizeMatch('requests.get(url, timeout=5)'), normalizeMatch('requests.get(url, timeout=10)'));
  });

  test('the first callee of a piece of code', () => {
    assert.equal(firstCallee('  subprocess . call(cmd, shell=True)'), 'subprocess.call');
    assert.equal(firstCallee('x = 1'), null);
  });

  test('text similarity is 1 for equal excerpts and lower for different ones', () => {
    assert.equal(textSimilarity('a(b,  c)', 'a(b,c)'), 1);
    assert.ok(textSimilarity('requests.get(url, timeout=5)', 'requests.get(url, timeout=10)') > textSimilarity('requests.get(url, timeout=5)', 'os.system(cmd)'));
    assert.equal(textSimilarity(null, 'x'), 0);
  });
});

describe('snippetOf', () => {
  const token = `ghp_${'aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6'.slice(0, 36)}`;

  test('shows the lines of the match, at most five, with any credential masked', () => {
    const text = ['a = 1', `TOKEN = "${token}"`, 'b = 2', 'c = 3', 'd = 4', 'e = 5', 'f = 6', 'g = 7'].join('\n');
    const snippet = snippetOf(text, 2, 8)!;
    assert.equal(snippet.split('\n').length, 5);
    assert.ok(snippet.startsWith('TOKEN = "ghp_'), snippet);
    assert.ok(!snippet.includes(token.slice(4, 12)), snippet);
    assert.equal(snippetOf(text, 3, 3), 'b = 2');
  });

  test("a secret's own lines also hide every long random-looking run beside it", () => {
    const text = 'url = "https://hooks.example.test/services/T0A1B2C3D4/Zx9Yw8Vu7Ts6"';
    const snippet = snippetOf(text, 1, 1, ['Zx9Yw8Vu7Ts6'])!;
    assert.ok(!snippet.includes('Zx9Yw8Vu'), snippet);
    assert.ok(!snippet.includes('T0A1B2C3D4'), snippet);
    assert.match(snippet, /^url = "https:\/\/hooks\.example\.test\//);
  });

  test('cuts long lines after masking, so no cut leaves part of a credential showing', () => {
    const text = `${'x'.repeat(190)} "${token}"`;
    const snippet = snippetOf(text, 1, 1)!;
    // Cut first, the line would end in the token's first eight characters, too few for the detector.
    assert.ok(!snippet.includes(token.slice(0, 8)), snippet);
    assert.ok(snippet.endsWith('…'));
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scoreCvss, severityFromDatabase } from '../../src/osv/cvss.ts';
import type { OsvSeverity } from '../../src/osv/record.ts';

const V3_CRITICAL = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const V3_MEDIUM = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N';
const V4_CRITICAL = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N';
const V2_HIGH = 'AV:N/AC:L/Au:N/C:P/I:P/A:P';

const v2 = (score: string): OsvSeverity => ({ type: 'CVSS_V2', score });
const v3 = (score: string): OsvSeverity => ({ type: 'CVSS_V3', score });
const v4 = (score: string): OsvSeverity => ({ type: 'CVSS_V4', score });

describe('scoreCvss', () => {
  test('known base scores and ratings for each version', () => {
    const cases: [OsvSeverity, number, string, string][] = [
      [v3(V3_CRITICAL), 9.8, 'critical', '3.1'],
      [v3(V3_MEDIUM), 6.1, 'medium', '3.1'],
      [v3('CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'), 9.8, 'critical', '3.0'],
      [v3('CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N'), 7.4, 'high', '3.1'],
      [v3('CVSS:3.1/AV:L/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N'), 1.8, 'low', '3.1'],
      [v3('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N'), 0, 'none', '3.1'],
      [v4(V4_CRITICAL), 9.3, 'critical', '4.0'],
      [v4('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N'), 0, 'none', '4.0'],
      [v2(V2_HIGH), 7.5, 'high', '2.0'],
      [v2('AV:N/AC:L/Au:N/C:C/I:C/A:C'), 10, 'high', '2.0'],
      [v2('AV:N/AC:M/Au:N/C:P/I:N/A:N'), 4.3, 'medium', '2.0'],
      [v2('AV:L/AC:H/Au:N/C:P/I:N/A:N'), 1.2, 'low', '2.0'],
    ];
    for (const [severity, baseScore, rating, version] of cases) {
      assert.deepEqual(scoreCvss([severity]), { vector: severity.score, baseScore, severity: rating, version }, severity.score);
    }
  });

  test('the base score ignores temporal, threat and environmental metrics', () => {
    assert.equal(scoreCvss([v3(`${V3_CRITICAL}/E:U/RL:O/RC:U`)])?.baseScore, 9.8);
    assert.equal(scoreCvss([v4(`${V4_CRITICAL}/E:U`)])?.baseScore, 9.3);
    assert.equal(scoreCvss([v2(`${V2_HIGH}/E:U/RL:OF/RC:UC`)])?.baseScore, 7.5);
  });

  test('v2 vectors with a CVSS:2.0 prefix or in parentheses', () => {
    assert.equal(scoreCvss([v2(`CVSS:2.0/${V2_HIGH}`)])?.baseScore, 7.5);
    assert.equal(scoreCvss([v2(`(${V2_HIGH})`)])?.baseScore, 7.5);
  });

  test('v4 is preferred over v3.1, v3.1 over v3.0, v3 over v2, whatever the order', () => {
    assert.equal(scoreCvss([v2(V2_HIGH), v3(V3_MEDIUM), v4(V4_CRITICAL)])?.version, '4.0');
    assert.equal(scoreCvss([v4(V4_CRITICAL), v3(V3_MEDIUM)])?.version, '4.0');
    assert.equal(scoreCvss([v3('CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'), v3(V3_MEDIUM)])?.version, '3.1');
    assert.deepEqual(scoreCvss([v2(V2_HIGH), v3(V3_MEDIUM)]), { vector: V3_MEDIUM, baseScore: 6.1, severity: 'medium', version: '3.1' });
  });

  test('within one version the first valid vector wins', () => {
    assert.equal(scoreCvss([v3(V3_MEDIUM), v3(V3_CRITICAL)])?.baseScore, 6.1);
  });

  test('invalid vectors are skipped in favour of the next usable one', () => {
    const invalid = [
      v4('garbage'),
      v4('CVSS:4.0/AV:N'),
      v4('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:Q'),
      v3('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H'),
      v3('CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'),
      v3('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/FOO:Z'),
      v3('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/AV:L'),
      v3('CVSS:3.9/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'),
      v3(''),
      { type: 'CVSS_V3', score: null as unknown as string },
      { type: 'Ubuntu', score: 'high' },
    ];
    for (const severity of invalid) {
      assert.equal(scoreCvss([severity]), null, JSON.stringify(severity));
      assert.equal(scoreCvss([severity, v2(V2_HIGH)])?.version, '2.0', JSON.stringify(severity));
    }
  });

  test('no severities, no score', () => {
    assert.equal(scoreCvss(undefined), null);
    assert.equal(scoreCvss([]), null);
  });

  test('surrounding whitespace is tolerated', () => {
    assert.deepEqual(scoreCvss([v3(`  ${V3_CRITICAL}\n`)])?.vector, V3_CRITICAL);
  });
});

describe('severityFromDatabase', () => {
  test('GHSA labels map to severities, anything else to null', () => {
    assert.equal(severityFromDatabase('CRITICAL'), 'critical');
    assert.equal(severityFromDatabase('HIGH'), 'high');
    assert.equal(severityFromDatabase('MODERATE'), 'medium');
    assert.equal(severityFromDatabase('MEDIUM'), 'medium');
    assert.equal(severityFromDatabase('LOW'), 'low');
    assert.equal(severityFromDatabase('moderate'), 'medium');
    for (const label of [undefined, null, '', 'UNKNOWN', 'none', 'INFO']) assert.equal(severityFromDatabase(label), null, String(label));
  });
});

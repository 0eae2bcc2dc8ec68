// The fixer registry matches a finding's rule, never the scan type that reported it: each family
// (SAST codemods, SAST credential rules, SAST rule fixes, the detector's secrets, dependency advisories)
// takes the findings of its rules from any scan, and a deep_ai_scan finding goes through the same fix
// path as the semgrep_scan finding of the same rule.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { allFixers, fixerFor } from '../../src/fixing/fixers/index.ts';
import { CODEMODS } from '../../src/fixing/fixers/sast/codemods/index.ts';
import type { FixFinding } from '../../src/fixing/types.ts';
import { verifyFix } from '../../src/fixing/verify.ts';
import { loadRuleSet } from '../../src/scanning/sast/rule-set.ts';
import { deepAiScan } from '../../src/scanning/scan-types/deep-ai.ts';
import { SCAN_TYPES, type ScanType } from '../../src/scanning/scan-types/index.ts';
import { fixFinding } from '../support/finding-rows.ts';
import { workTree } from '../support/fix-workspace.ts';

const rules = loadRuleSet();
const CREDENTIAL_RULE = 'python.lang.secrets.hardcoded-secret-key';
const CODEMOD_RULE = 'python.lang.deserialization.untrusted-load';
const RULE_WITH_FIX = 'python.requests.tls.verify-disabled';

/** The fixer each scan type's finding of the rule gets; the same for all of them when matching is by rule. */
const fixerNamesAcrossTypes = (finding: Partial<FixFinding>) =>
  new Set(SCAN_TYPES.map((scanType: ScanType) => fixerFor(fixFinding({ ...finding, scanType }))?.name));

describe('the fixer registry matches rules', () => {
  test('lists every fixer once, in the documented order', () => {
    assert.deepEqual(
      allFixers(() => rules).map((f) => f.name),
      ['sast-codemod', 'sast-credentials', 'sast-rule-fix', 'secrets', 'dependencies'],
    );
  });

  test("a codemod's rules go to the codemod, from any scan", () => {
    for (const ruleId of CODEMODS.flatMap((codemod) => codemod.rules)) {
      assert.deepEqual(fixerNamesAcrossTypes({ checkId: ruleId }), new Set(['sast-codemod']), ruleId);
    }
  });

  test('a SAST credential rule goes to the credential mover; a rule with a fix (and no codemod) to its template', () => {
    assert.ok(rules.rules.some((r) => r.id === CREDENTIAL_RULE && r.category === 'secrets'));
    assert.deepEqual(fixerNamesAcrossTypes({ checkId: CREDENTIAL_RULE, category: 'secrets' }), new Set(['sast-credentials']));
    assert.deepEqual(fixerNamesAcrossTypes({ checkId: RULE_WITH_FIX }), new Set(['sast-rule-fix']));
  });

  test("the secrets detector's rules, named secrets.<rule> or stored under its category, go to the secrets fixer", () => {
    assert.deepEqual(fixerNamesAcrossTypes({ checkId: 'secrets.github-pat' }), new Set(['secrets']));
    assert.deepEqual(fixerNamesAcrossTypes({ checkId: 'aws-access-key', category: 'secrets' }), new Set(['secrets']));
    // Another engine's rule in the same category is not the detector's.
    assert.deepEqual(fixerNamesAcrossTypes({ checkId: 'ai.review.hardcoded-token', category: 'secrets' }), new Set([undefined]));
  });

  test('an advisory on a dependency goes to the dependency fixer', () => {
    const advisory = { checkId: 'GHSA-xxxx-yyyy-zzzz', filePath: 'package-lock.json', metadata: { package: 'lodash', ecosystem: 'npm', installed_version: '1.0.0', fixed_version: '1.0.1' } };
    assert.deepEqual(fixerNamesAcrossTypes(advisory), new Set(['dependencies']));
    assert.deepEqual(fixerNamesAcrossTypes({ checkId: 'GHSA-xxxx-yyyy-zzzz', category: 'dependency' }), new Set(['dependencies']));
  });

  test('a rule no fixer knows gets none: whole-application checks, model discoveries, rules without a fix', () => {
    for (const checkId of ['python.deep.auth.missing-authentication', 'ai.discovery.cwe-89', 'python.flask.csrf.exempt', 'ai.review.authz']) {
      assert.deepEqual(fixerNamesAcrossTypes({ checkId, category: 'security' }), new Set([undefined]), checkId);
    }
  });
});

describe('a deep_ai_scan finding through the fix path', () => {
  test('the deep scan’s credential, codemod and rule-fix findings are fixed by rule, and its rescan no longer finds them', async () => {
    const file = 'app.py';
    const text = [
      'import requests',
      'import yaml',
      'from flask import Flask, request',
      '',
      'app = Flask(__name__)',
      'app.config["SECRET_KEY"] = "super-secret-key-123"',
      '',
      '@app.route("/y")',
      'def y():',
      '    return yaml.load(request.data, Loader=yaml.FullLoader)',
      '',
      '@app.route("/p")',
      'def p():',
      '    return requests.get("https://example.com", verify=False).text',
      '',
    ].join('\n');
    const workspace = workTree({ [file]: text });
    const engine = await deepAiScan.engine!({ secretsHistoryDepth: 0, inCallingThread: true });
    const raw = await engine.scan({ dir: workspace.dir, fingerprintKey: Buffer.alloc(32) });
    const findings: FixFinding[] = raw
      .filter((f) => [CREDENTIAL_RULE, CODEMOD_RULE, RULE_WITH_FIX].includes(f.checkId))
      .map((f, i) => ({
        id: `deep-${i}`, scanType: 'deep_ai_scan', checkId: f.checkId, category: f.category, severity: f.severity, title: f.title,
        message: f.message, filePath: f.filePath, startLine: f.startLine, endLine: f.endLine, cwe: f.cwe, metadata: f.metadata,
      }));
    assert.deepEqual(findings.map((f) => f.checkId).sort(), [CREDENTIAL_RULE, RULE_WITH_FIX, CODEMOD_RULE].sort());

    const changed = new Set<string>();
    const fixedBy: Record<string, string> = {};
    for (const finding of findings) {
      const fixer = fixerFor(finding);
      assert.ok(fixer, `no fixer for the deep_ai_scan finding ${finding.checkId}`);
      const outcome = await fixer.apply(finding, workspace);
      assert.equal(outcome.fixed, true, outcome.note);
      outcome.changedFiles.forEach((f) => changed.add(f));
      fixedBy[finding.checkId] = fixer.name;
    }
    assert.deepEqual(fixedBy, { [CREDENTIAL_RULE]: 'sast-credentials', [CODEMOD_RULE]: 'sast-codemod', [RULE_WITH_FIX]: 'sast-rule-fix' });

    const after = fs.readFileSync(path.join(workspace.dir, file), 'utf8');
    assert.match(after, /os\.environ\.get\("SECRET_KEY"\)/);
    assert.match(after, /yaml\.safe_load\(request\.data\)/);
    assert.doesNotMatch(after, /super-secret-key-123|verify=False/);
    const verdict = await verifyFix(workspace.dir, findings, [...changed], new Map([[file, text]]));
    assert.deepEqual(verdict, { stillDetected: [], unparsable: [] });
  });
});

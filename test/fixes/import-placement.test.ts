// Fixes of one file are separate diffs from the same commit, and must merge in any order as their pull
// requests do. The imports and helpers codemods add go where another fix's are unlikely to go: an import at
// its sorted place among the module's first import block, a helper above the statement that uses it. Each
// pair below is two real codemod fixes of one file (or two edit-kit additions where no codemod fits), held
// against each other as a completing fix is (diffsConflict), then merged to check what the file becomes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { parserFor } from '../../src/languages/index.ts';
import { loadRuleSet } from '../../src/scanning/sast/rule-set.ts';
import { analyzeSource } from '../../src/scanning/sast/sast-engine.ts';
import { diffsConflict } from '../../src/fixing/fix-conflicts.ts';
import { codemodFixer } from '../../src/fixing/fixers/sast/codemod-fixer.ts';
import { jsHelper, jsImport, pythonHelper, pythonImport } from '../../src/fixing/fixers/sast/codemods/edit-kit.ts';
import { codeParserFor, parseCode, syntaxErrors } from '../../src/fixing/fixers/shared/syntax.ts';
import { applyEdits, type TextEdit } from '../../src/fixing/fixers/shared/text-edits.ts';
import type { FixFinding } from '../../src/fixing/types.ts';
import { TestRepo } from '../support/git-repo.ts';

const rules = loadRuleSet();
const repos: TestRepo[] = [];
after(() => repos.forEach((repo) => repo.remove()));

/** A repository whose one commit holds `file`, and the diffs made from that commit. */
function repoWith(file: string, text: string): { repo: TestRepo; base: string; diffOf(changed: string): string } {
  const repo = TestRepo.create();
  repos.push(repo);
  const base = repo.commit({ [file]: text });
  return {
    repo,
    base,
    diffOf(changed: string) {
      fs.writeFileSync(path.join(repo.dir, file), changed);
      const diff = repo.git('diff');
      fs.writeFileSync(path.join(repo.dir, file), text);
      return diff;
    },
  };
}

/** The diff of the codemod fix of the `ruleId` finding on the line holding `near`. */
async function codemodDiff(file: string, text: string, ruleId: string, near: string, repo: TestRepo): Promise<string> {
  const lines = text.split('\n');
  const match = analyzeSource(rules, parserFor(file)!, text).find((m) => m.rule.id === ruleId && lines[m.startLine - 1]!.includes(near));
  assert.ok(match, `${ruleId} does not fire at ${near}`);
  const finding: FixFinding = {
    id: `${ruleId}@${match.startLine}`, scanType: 'semgrep_scan', checkId: ruleId, severity: match.rule.severity, title: null, message: match.rule.message,
    filePath: file, startLine: match.startLine, endLine: match.endLine, cwe: match.rule.cwe, metadata: {},
  };
  const outcome = await codemodFixer.apply(finding, { dir: repo.dir, signal: new AbortController().signal, step: async () => {} });
  assert.equal(outcome.fixed, true, outcome.note);
  const diff = repo.git('diff');
  fs.writeFileSync(path.join(repo.dir, file), text);
  return diff;
}

/** The file after the diffs merge one after the other (the later ones three ways), as their pull requests would. */
function merged(repo: TestRepo, base: string, file: string, diffs: string[]): string {
  const env = { ...process.env, GIT_INDEX_FILE: path.join(repo.dir, '.git', 'merge-index') };
  execFileSync('git', ['read-tree', base], { cwd: repo.dir, env });
  diffs.forEach((diff, i) => execFileSync('git', ['apply', '--cached', ...(i ? ['--3way'] : []), '-'], { cwd: repo.dir, env, input: diff, stdio: ['pipe', 'pipe', 'pipe'] }));
  return execFileSync('git', ['show', `:${file}`], { cwd: repo.dir, env, encoding: 'utf8' });
}

/** Holds two fixes of `file` against each other and merges them: they must not conflict, and the result must parse. */
async function mergesCleanly(file: string, text: string, ours: string, theirs: string, repo: TestRepo, base: string): Promise<string> {
  assert.notEqual(ours, theirs);
  assert.equal(await diffsConflict({ ours, theirs }, base, { cwd: repo.dir, timeoutMs: 10_000 }), false, `the two fixes conflict:\n${ours}\n${theirs}`);
  const result = merged(repo, base, file, [ours, theirs]);
  assert.equal(merged(repo, base, file, [theirs, ours]), result, 'either order gives the same file');
  assert.equal(syntaxErrors(parseCode(codeParserFor(file)!, result)).count, 0, result);
  assert.notEqual(result, text);
  return result;
}

const pythonKey = (line: string) => {
  const m = /^(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))/.exec(line)!;
  return `${m[1] === '__future__' ? 0 : 1}${(m[1] ?? m[2])!.toLowerCase()}`;
};
const jsKey = (line: string) => /(?:from\s*|require\()"([^"]+)"/.exec(line)![1]!.toLowerCase();

/** `line` is in the file, and sorts after the import line above it and before the one below it (where those are imports). */
function sortedAmongImports(result: string, line: string, key: (line: string) => string, isImport: (line: string) => boolean) {
  const lines = result.split(/\r?\n/);
  const at = lines.indexOf(line);
  assert.ok(at >= 0, `${line} is not in\n${result}`);
  const above = lines[at - 1];
  const below = lines[at + 1];
  if (above !== undefined && isImport(above)) assert.ok(key(above) <= key(line), `${line} comes after ${above}`);
  if (below !== undefined && isImport(below)) assert.ok(key(line) <= key(below), `${line} comes before ${below}`);
}
const sortedPython = (result: string, line: string) => sortedAmongImports(result, line, pythonKey, (l) => /^(from\s+\S+\s+)?import\s/.test(l));
const sortedJs = (result: string, line: string) => sortedAmongImports(result, line, jsKey, (l) => /^import\s|^const \w+ = require\(/.test(l));

describe('Python: fixes of one module that add different imports and helpers merge', () => {
  const APP = `import os
import sqlite3

from flask import Flask, redirect, request

app = Flask(__name__)


@app.route("/hello")
def hello():
    name = request.args.get("name", "")
    return "<h1>Hello " + name + "</h1>"


@app.route("/backup")
def backup():
    os.system("tar czf /tmp/backup.tgz " + request.args["dir"])
    return "ok"


@app.route("/load")
def load():
    return str(eval(request.args["v"]))


@app.route("/go")
def go():
    return redirect(request.args.get("next"))


@app.route("/lookup")
def lookup():
    return subprocess.check_output(["nslookup", request.args.get("host", "")])
`;

  test('an escaped response (import from markupsafe) and a command without a shell (import subprocess): both imports in sorted place', async () => {
    const { repo, base } = repoWith('app.py', APP);
    const xss = await codemodDiff('app.py', APP, 'python.lang.xss.response-from-request', 'Hello', repo);
    const shell = await codemodDiff('app.py', APP, 'python.lang.command-injection.shell-command', 'tar czf', repo);
    const result = await mergesCleanly('app.py', APP, xss, shell, repo, base);
    sortedPython(result, 'from markupsafe import escape');
    sortedPython(result, 'import subprocess');
    // As isort keeps a section: `import x` lines first, then `from x import` lines, each group by module.
    assert.ok(result.startsWith('import os\nimport sqlite3\nimport subprocess\n\nfrom flask import Flask, redirect, request\nfrom markupsafe import escape\n\n'), result);
    assert.match(result, /return "<h1>Hello " \+ str\(escape\(name\)\) \+ "<\/h1>"/);
    assert.match(result, /subprocess\.call\(\["tar", "czf", "\/tmp\/backup\.tgz", /);
  });

  test('an import (ast) and a helper (same_site_location) of two fixes: the helper stands above its view, apart from the imports', async () => {
    const { repo, base } = repoWith('app.py', APP);
    const evalFix = await codemodDiff('app.py', APP, 'python.lang.code-injection.eval', 'eval(', repo);
    const redirectFix = await codemodDiff('app.py', APP, 'python.lang.open-redirect.redirect', 'redirect(request', repo);
    const result = await mergesCleanly('app.py', APP, evalFix, redirectFix, repo, base);
    sortedPython(result, 'import ast');
    assert.ok(result.startsWith('import ast\nimport os\n'), result);
    assert.match(result, /\n\n\ndef same_site_location\([^\n]*\n(?:    [^\n]*\n|\n)*?\n\n@app\.route\("\/go"\)\ndef go\(\):\n    return redirect\(same_site_location\(request\.args\.get\("next"\)\)\)\n/);
  });

  test('two different helpers for findings in two views (same_site_location, as_operand) merge, each above its view', async () => {
    const { repo, base } = repoWith('app.py', APP);
    const redirectFix = await codemodDiff('app.py', APP, 'python.lang.open-redirect.redirect', 'redirect(request', repo);
    const operandFix = await codemodDiff('app.py', APP, 'python.lang.command-injection.argument-injection', 'nslookup', repo);
    const result = await mergesCleanly('app.py', APP, redirectFix, operandFix, repo, base);
    assert.ok(result.indexOf('def same_site_location') < result.indexOf('def go()'));
    assert.ok(result.indexOf('def go()') < result.indexOf('def as_operand') && result.indexOf('def as_operand') < result.indexOf('def lookup()'), result);
  });

  test('a module with a docstring and from __future__: new imports go after them, in sorted place, and merge', async () => {
    const TOKENS = `"""Password reset tokens and file checksums."""
from __future__ import annotations

from hashlib import md5
import random
import string


def reset_token() -> str:
    return "".join(random.choice(string.ascii_letters) for _ in range(32))


def checksum(data: bytes) -> str:
    return md5(data).hexdigest()
`;
    const { repo, base } = repoWith('tokens.py', TOKENS);
    const randomFix = await codemodDiff('tokens.py', TOKENS, 'python.lang.crypto.insecure-random', 'random.choice', repo);
    const hashFix = await codemodDiff('tokens.py', TOKENS, 'python.lang.crypto.weak-hash', 'md5(data)', repo);
    const result = await mergesCleanly('tokens.py', TOKENS, randomFix, hashFix, repo, base);
    assert.ok(result.startsWith('"""Password reset tokens and file checksums."""\nfrom __future__ import annotations\n\nfrom hashlib import md5\nfrom hashlib import sha256\nimport random\nimport secrets\nimport string\n'), result);
  });

  test('with only a docstring and from __future__, an import goes below them, never above', () => {
    const text = '"""Views."""\nfrom __future__ import annotations\n\n\ndef page(name):\n    return name\n';
    const root = parseCode('python', text);
    assert.equal(applyEdits(text, pythonImport(root, text, 'import html', 'html')), '"""Views."""\nfrom __future__ import annotations\nimport html\n\n\ndef page(name):\n    return name\n');
  });

  test('a module without imports: an import below the docstring and a helper above the function merge', async () => {
    const text = '#!/usr/bin/env python3\n"""A script."""\n\n\ndef main(argv):\n    return run(argv[1])\n';
    const { repo, base, diffOf } = repoWith('script.py', text);
    const root = parseCode('python', text);
    const use = root.find('run($X)')!;
    const withImport = applyEdits(text, pythonImport(root, text, 'import shlex', 'shlex'));
    assert.equal(withImport, '#!/usr/bin/env python3\n"""A script."""\nimport shlex\n\n\ndef main(argv):\n    return run(argv[1])\n');
    const withHelper = applyEdits(text, pythonHelper(root, text, 'run', 'def run(value):\n    return value\n', use));
    const result = await mergesCleanly('script.py', text, diffOf(withImport), diffOf(withHelper), repo, base);
    assert.equal(result, '#!/usr/bin/env python3\n"""A script."""\nimport shlex\n\n\ndef run(value):\n    return value\n\n\ndef main(argv):\n    return run(argv[1])\n');
  });

  test('imports inside try blocks and after other code are not anchors; a file with CRLF lines gets CRLF lines; an import already there is not added again', () => {
    const text = 'import os\r\nimport sys\r\n\r\ntry:\r\n    import json\r\nexcept ImportError:\r\n    json = None\r\nimport zlib\r\n';
    const root = parseCode('python', text);
    assert.equal(applyEdits(text, pythonImport(root, text, 'import xml', 'xml')), 'import os\r\nimport sys\r\nimport xml\r\n\r\ntry:\r\n    import json\r\nexcept ImportError:\r\n    json = None\r\nimport zlib\r\n');
    assert.equal(applyEdits(text, pythonImport(root, text, 'import re', 're')), 'import os\r\nimport re\r\nimport sys\r\n\r\ntry:\r\n    import json\r\nexcept ImportError:\r\n    json = None\r\nimport zlib\r\n');
    assert.deepEqual(pythonImport(root, text, 'import sys', 'sys'), []);
  });

  // The case that still conflicts: two fixes whose new imports sort into the same gap of the block (here both
  // before `import os`) insert different lines at one place. Git cannot order them, so the second fix to
  // complete is refused rather than merged wrong.
  test('two new imports that sort into the same gap are reported as a conflict', async () => {
    const text = 'import os\nimport sys\n\n\ndef a(v):\n    return v\n\n\ndef b(v):\n    return v\n';
    const { repo, base, diffOf } = repoWith('m.py', text);
    const root = parseCode('python', text);
    const withHtml = diffOf(applyEdits(text, pythonImport(root, text, 'import html', 'html')));
    const withAst = diffOf(applyEdits(text, pythonImport(root, text, 'import ast', 'ast')));
    assert.equal(await diffsConflict({ ours: withHtml, theirs: withAst }, base, { cwd: repo.dir, timeoutMs: 10_000 }), true);
    assert.equal(await diffsConflict({ ours: withAst, theirs: withHtml }, base, { cwd: repo.dir, timeoutMs: 10_000 }), true);
  });
});

describe('JavaScript: fixes of one module that add different imports and helpers merge', () => {
  const routes = `
const app = express();

app.get("/read", async (req, res) => {
  const data = await fs.promises.readFile("/var/data/" + req.params.name + ".txt", "utf8");
  res.type("text/plain").send(data);
});

app.get("/preview", async (req, res) => {
  const page = await fetch(req.query.url);
  res.send(await page.text());
});

app.get("/hello", (req, res) => {
  res.send("<h1>Hello " + req.query.name + "</h1>");
});
`;
  const COMMONJS = `"use strict";

const express = require("express");
const fs = require("node:fs");
const os = require("node:os");
${routes}`;
  const ESM = `import express from "express";
import fs from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
${routes}`;

  for (const [kind, text] of [['CommonJS', COMMONJS], ['ES module', ESM]] as const) {
    test(`${kind}: a path kept in its folder (node:path and pathInside) and a request to a public URL only (node:dns, node:net and publicUrl) merge, imports sorted`, async () => {
      const { repo, base } = repoWith('app.js', text);
      const pathFix = await codemodDiff('app.js', text, 'javascript.lang.path-traversal.file-access', 'readFile', repo);
      const urlFix = await codemodDiff('app.js', text, 'javascript.lang.ssrf.outbound-request', 'fetch(', repo);
      const result = await mergesCleanly('app.js', text, pathFix, urlFix, repo, base);
      const line = (name: string, module: string) => (kind === 'CommonJS' ? `const ${name} = require("${module}");` : `import ${name} from "${module}";`);
      for (const [name, module] of [['path', 'node:path'], ['dns', 'node:dns'], ['net', 'node:net']]) sortedJs(result, line(name!, module!));
      assert.ok(result.indexOf('function pathInside') < result.indexOf('app.get("/read"'));
      assert.ok(result.indexOf('app.get("/read"') < result.indexOf('async function publicUrl') && result.indexOf('async function publicUrl') < result.indexOf('app.get("/preview"'), result);
    });

    test(`${kind}: two helpers (escapeHtml, publicUrl) of fixes in two routes merge, each above its route`, async () => {
      const { repo, base } = repoWith('app.js', text);
      const xssFix = await codemodDiff('app.js', text, 'javascript.express.xss.response-from-request', 'Hello', repo);
      const urlFix = await codemodDiff('app.js', text, 'javascript.lang.ssrf.outbound-request', 'fetch(', repo);
      const result = await mergesCleanly('app.js', text, xssFix, urlFix, repo, base);
      assert.ok(result.indexOf('app.get("/preview"') < result.indexOf('function escapeHtml') && result.indexOf('function escapeHtml') < result.indexOf('app.get("/hello"'), result);
      if (kind === 'CommonJS') assert.ok(result.startsWith('"use strict";\n\nconst express = require("express");\nconst dns = require("node:dns");\nconst fs = require("node:fs");\nconst net = require("node:net");\nconst os = require("node:os");\n'), result);
    });
  }

  test('a finding whose line lies between two matches in two functions: both are fixed and the helper is added once, above the first', async () => {
    const text = 'function sessionToken() {\n  return Math.random().toString(36).slice(2); }\n\nfunction resetToken() { return Math.random().toString(36).slice(2); }\n';
    const { repo } = repoWith('r.js', text);
    const match = analyzeSource(rules, 'javascript', text).find((m) => m.rule.id === 'javascript.lang.crypto.insecure-random')!;
    const finding: FixFinding = {
      id: 'f', scanType: 'deep_ai_scan', checkId: match.rule.id, severity: match.rule.severity, title: null, message: match.rule.message,
      filePath: 'r.js', startLine: 3, endLine: 3, cwe: match.rule.cwe, metadata: {},
    };
    const outcome = await codemodFixer.apply(finding, { dir: repo.dir, signal: new AbortController().signal, step: async () => {} });
    assert.equal(outcome.fixed, true, outcome.note);
    const result = fs.readFileSync(path.join(repo.dir, 'r.js'), 'utf8');
    assert.equal(result.match(/function secureRandom/g)?.length, 1, result);
    assert.ok(result.startsWith('function secureRandom()'), result);
    assert.equal(result.match(/return secureRandom\(\)/g)?.length, 2, result);
  });

  test('"use strict" and no imports: a require goes below the directive, a helper above the function using it, and the two merge', async () => {
    const text = '"use strict";\n\nfunction token() {\n  return Math.random().toString(36).slice(2);\n}\n\nmodule.exports = { token };\n';
    const { repo, base, diffOf } = repoWith('token.js', text);
    const root = parseCode('javascript', text);
    const withImport = applyEdits(text, jsImport(root, text, 'crypto', 'node:crypto'));
    assert.equal(withImport, '"use strict";\nconst crypto = require("node:crypto");\n\nfunction token() {\n  return Math.random().toString(36).slice(2);\n}\n\nmodule.exports = { token };\n');
    const helper = jsHelper(root, text, 'javascript', 'secureRandom', () => 'function secureRandom() {\n  return 0.5;\n}\n', root.find('Math.random()')!);
    const result = await mergesCleanly('token.js', text, diffOf(withImport), diffOf(applyEdits(text, helper as TextEdit[])), repo, base);
    assert.equal(result, '"use strict";\nconst crypto = require("node:crypto");\n\nfunction secureRandom() {\n  return 0.5;\n}\n\nfunction token() {\n  return Math.random().toString(36).slice(2);\n}\n\nmodule.exports = { token };\n');
  });
});

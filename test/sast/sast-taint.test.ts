import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadRuleSet } from '../../src/scanning/sast/rule-set.ts';
import { analyzeSource } from '../../src/scanning/sast/sast-engine.ts';

// Focused checks of taint propagation: what carries request data to a sink, and what stops it.

const ruleSet = loadRuleSet();
const SQLI = 'python.lang.sqli.string-built-query';
const CMDI = 'python.lang.command-injection.shell-command';

/** Lines on which `ruleId` reports in a Flask handler whose body is `body`. */
function reported(ruleId: string, body: string, prelude = ''): number[] {
  const indented = body.trim().split('\n').map((l) => `    ${l}`).join('\n');
  const source = `${prelude}\n@app.route("/x")\ndef handler():\n${indented}\n`;
  const offset = prelude.split('\n').length + 2;
  return analyzeSource(ruleSet, 'python', source)
    .filter((m) => m.rule.id === ruleId)
    .map((m) => m.startLine - offset);
}

describe('taint propagation (Python)', () => {
  test('through a chain of variables', () => {
    assert.deepEqual(reported(SQLI, `a = request.args["q"]\nb = a\nc = b\ncur.execute("SELECT " + c)`), [4]);
  });

  test('through every kind of string building', () => {
    for (const build of [`"SELECT %s" % v`, `"SELECT {}".format(v)`, `f"SELECT {v}"`, `"SELECT " + v`, `" ".join(["SELECT", v])`]) {
      assert.deepEqual(reported(SQLI, `v = request.form.get("v")\nq = ${build}\ncur.execute(q)`), [3], build);
    }
  });

  test('through containers and tuple unpacking', () => {
    assert.deepEqual(reported(SQLI, `params = {"name": request.args["n"]}\ncur.execute("SELECT " + params["name"])`), [2]);
    assert.deepEqual(reported(SQLI, `a, b = request.args["x"], 1\ncur.execute("SELECT " + a)`), [2]);
  });

  test('through helper functions of the same file, in both directions', () => {
    const helpers = `def quoted(value):\n    return "'" + value + "'"\n\ndef constant(value):\n    return "'x'"\n\ndef _run(sql):\n    cur.execute(sql)\n`;
    assert.deepEqual(reported(SQLI, `cur.execute("SELECT " + quoted(request.args["q"]))`, helpers), [1]);
    assert.deepEqual(reported(SQLI, `cur.execute("SELECT " + constant(request.args["q"]))`, helpers), []);
    // A helper whose parameter reaches a sink is reported at that sink.
    const hits = analyzeSource(ruleSet, 'python', `${helpers}\n@app.route("/x")\ndef handler():\n    _run("SELECT " + request.args["q"])\n`)
      .filter((m) => m.rule.id === SQLI)
      .map((m) => m.startLine);
    assert.deepEqual(hits, [8]);
  });

  test('through helpers that call helpers, however deep, and past recursion', () => {
    const chain = `def _run(sql):\n    cur.execute(sql)\n\ndef _middle(sql):\n    _run(sql)\n\ndef _outer(sql):\n    _middle(sql)\n\ndef _loop(sql, n):\n    if n:\n        _loop(sql, n - 1)\n    cur.execute(sql)\n`;
    const sinkLines = (call: string) =>
      analyzeSource(ruleSet, 'python', `${chain}\n@app.route("/x")\ndef handler():\n    ${call}\n`)
        .filter((m) => m.rule.id === SQLI)
        .map((m) => m.startLine);
    assert.deepEqual(sinkLines(`_outer("SELECT " + request.args["q"])`), [2]);
    assert.deepEqual(sinkLines(`_outer("SELECT 1")`), []);
    assert.deepEqual(sinkLines(`_loop("SELECT " + request.args["q"], 3)`), [13]);
  });

  test('stopped by sanitizers, and only for the rule they protect', () => {
    assert.deepEqual(reported(SQLI, `n = int(request.args["n"])\ncur.execute("SELECT %d" % n)`), []);
    assert.deepEqual(reported(CMDI, `h = shlex.quote(request.args["h"])\nos.system("ping " + h)`), []);
    // shlex.quote makes a value safe for a shell, not for SQL.
    assert.deepEqual(reported(SQLI, `h = shlex.quote(request.args["h"])\ncur.execute("SELECT " + h)`), [2]);
  });

  test('cleared when a variable is re-assigned from a clean value', () => {
    assert.deepEqual(reported(SQLI, `q = request.args["q"]\nq = "SELECT 1"\ncur.execute(q)`), []);
    assert.deepEqual(reported(SQLI, `if ok:\n    q = request.args["q"]\n    q = "SELECT 1"\n    cur.execute(q)`), []);
  });

  test('not cleared by a clean value assigned on a branch that may not run', () => {
    assert.deepEqual(reported(SQLI, `q = request.args.get("q")\nif not q:\n    q = ""\ncur.execute("SELECT " + q)`), [4]);
    assert.deepEqual(reported(SQLI, `if ok:\n    q = request.args["q"]\nelse:\n    q = "x"\ncur.execute("SELECT " + q)`), [5]);
    assert.deepEqual(reported(SQLI, `p = request.args["q"]\nmatch mode:\n    case "a":\n        q = p\n    case _:\n        q = "x"\ncur.execute("SELECT " + q)`), [7]);
  });

  test('parameterized queries are not injection', () => {
    assert.deepEqual(reported(SQLI, `cur.execute("SELECT * FROM t WHERE id = ?", (request.args["id"],))`), []);
  });

  test('private helpers are not entry points; public ones are', () => {
    const source = (name: string) => `def ${name}(value):\n    os.system("ls " + value)\n`;
    assert.equal(analyzeSource(ruleSet, 'python', source('_list_dir')).filter((m) => m.rule.id === CMDI).length, 0);
    assert.equal(analyzeSource(ruleSet, 'python', source('list_dir')).filter((m) => m.rule.id === CMDI).length, 1);
  });

  test("a helper that returns request data taints its result, whatever it is passed", () => {
    const helper = 'def user_input(request):\n    if request.method == "GET":\n        return request.GET.get("q", "")\n    return request.POST.get("q", "")\n\ndef constant(request):\n    return "ls"\n';
    const lines = (call: string) =>
      analyzeSource(ruleSet, 'python', `${helper}\ndef listing(request):\n    os.system("ls " + ${call})\n`).filter((m) => m.rule.id === CMDI).map((m) => m.startLine);
    assert.deepEqual(lines('user_input(request)'), [10]);
    assert.deepEqual(lines('constant(request)'), []);
  });

  test("a view made by a factory: the factory's parameters are fixed when the route is registered, its own are request data", () => {
    const factory = (view: string) => `def view_for(name):\n    ${view}\n        os.system("ls " + name)\n        os.system("ls " + page)\n    return view\n`;
    const lines = (view: string) => analyzeSource(ruleSet, 'python', factory(view)).filter((m) => m.rule.id === CMDI).map((m) => m.startLine);
    assert.deepEqual(lines('def view(request, page):'), [4]);
    assert.deepEqual(lines('@app.route("/p")\n    def view(page):'), [5]);
    // A nested function that takes no request is not known to be a view: it sees what the factory was given.
    assert.deepEqual(lines('def view(page):'), [3, 4]);
  });
});

describe('taint per entry, past checks and conditions (Python)', () => {
  const CODE = 'python.lang.code-injection.eval';

  test('a dictionary filled key by key holds request data only under the keys it was stored at', () => {
    const fill = `m = {}\nm["a"] = "fixed"\nm["b"] = request.args["q"]`;
    assert.deepEqual(reported(SQLI, `${fill}\ncur.execute("SELECT " + m["b"])`), [4]);
    assert.deepEqual(reported(SQLI, `${fill}\ncur.execute("SELECT " + m["a"])`), []);
    assert.deepEqual(reported(SQLI, `${fill}\ncur.execute("SELECT " + m[request.args["k"]])`), [4]);
    assert.deepEqual(reported(SQLI, `${fill}\nm["b"] = "reset"\ncur.execute("SELECT " + m["b"])`), []);
    // the whole container still carries what it holds
    assert.deepEqual(reported(SQLI, `${fill}\ncur.execute("SELECT " + json.dumps(m))`), [4]);
    assert.deepEqual(reported(SQLI, `m = request.args.to_dict()\ncur.execute("SELECT " + m["a"])`), [2]);
  });

  test('a check that leaves the function on bad content cleans the value after it', () => {
    assert.deepEqual(reported(SQLI, `v = request.args["q"]\nif "'" in v:\n    return "bad"\ncur.execute("SELECT '" + v + "'")`), []);
    assert.deepEqual(reported(SQLI, `v = request.args["q"]\nif v not in ALLOWED:\n    raise ValueError(v)\ncur.execute("SELECT " + v)`), []);
    assert.deepEqual(reported(CODE, `v = request.args["q"]\nif not v.startswith("'") or not v.endswith("'"):\n    return "bad"\neval(v)`), []);
    const REDIRECT = 'python.lang.open-redirect.redirect';
    const parsed = `to = request.args["next"]\nu = urllib.parse.urlparse(to)`;
    assert.deepEqual(reported(REDIRECT, `${parsed}\nif u.netloc not in ALLOWED_HOSTS:\n    abort(400)\n    return\nreturn redirect(to)`), []);
    assert.deepEqual(reported(REDIRECT, `${parsed}\nif u.netloc not in ALLOWED_HOSTS:\n    log("offsite")\nreturn redirect(to)`), [5]);
    // before the check, a check that does not leave, and a mere presence test, clean nothing
    assert.deepEqual(reported(SQLI, `v = request.args["q"]\ncur.execute("SELECT " + v)\nif "'" in v:\n    return "bad"`), [2]);
    assert.deepEqual(reported(SQLI, `v = request.args["q"]\nif "'" in v:\n    log("odd")\ncur.execute("SELECT " + v)`), [4]);
    const PATH = 'python.lang.path-traversal.file-access';
    const resolved = `base = pathlib.Path("/srv/files")\np = (base / request.args["f"]).resolve()`;
    assert.deepEqual(reported(PATH, `${resolved}\nif not str(p).startswith(str(base)):\n    return "no"\nreturn p.read_text()`), []);
    assert.deepEqual(reported(PATH, `${resolved}\nreturn p.read_text()`), [3]);
    assert.deepEqual(reported(SQLI, `v = request.args["q"]\nif not v:\n    return "missing"\ncur.execute("SELECT " + v)`), [4]);
  });

  test("a conditional expression's value comes from its branches, not its condition", () => {
    assert.deepEqual(reported(SQLI, `v = "a" if request.args.get("x") else "b"\ncur.execute("SELECT " + v)`), []);
    assert.deepEqual(reported(SQLI, `v = request.args["q"] if ok else "b"\ncur.execute("SELECT " + v)`), [2]);
  });

  test('a method that stores its argument in an object taints the object', () => {
    assert.deepEqual(reported(SQLI, `parts = []\nparts.append(request.args["q"])\ncur.execute("SELECT " + parts[0])`), [3]);
    assert.deepEqual(reported(SQLI, `conf = configparser.ConfigParser()\nconf.set("s", "k", request.args["q"])\ncur.execute("SELECT " + conf.get("s", "k"))`), [3]);
    assert.deepEqual(reported(SQLI, `parts = []\nparts.append("fixed")\nlog(request.args["q"])\ncur.execute("SELECT " + parts[0])`), []);
    const conf = `conf = configparser.ConfigParser()\nconf.set("s", "a", "fixed")\nconf.set("s", "b", request.args["q"])`;
    assert.deepEqual(reported(SQLI, `${conf}\ncur.execute("SELECT " + conf.get("s", "b"))`), [4]);
    assert.deepEqual(reported(SQLI, `${conf}\ncur.execute("SELECT " + conf.get("s", "a"))`), []);
    assert.deepEqual(reported(SQLI, `m = {}\nm["b"] = request.args["q"]\ncur.execute("SELECT " + m.get("b", ""))`), [3]);
    assert.deepEqual(reported(SQLI, `m = {}\nm["b"] = request.args["q"]\ncur.execute("SELECT " + m.get("a", ""))`), []);
  });

  test('a branch whose condition is a constant never taken binds nothing', () => {
    const param = `p = request.args["q"]\nlimit = 86`;
    assert.deepEqual(reported(SQLI, `${param}\nif 7 * 42 - limit > 200:\n    v = "fixed"\nelse:\n    v = p\ncur.execute("SELECT " + v)`), []);
    assert.deepEqual(reported(SQLI, `${param}\nif 7 * 42 - limit > 300:\n    v = "fixed"\nelse:\n    v = p\ncur.execute("SELECT " + v)`), [7]);
    assert.deepEqual(reported(SQLI, `${param}\nv = "fixed" if (limit + 114) // 2 == 100 else p\ncur.execute("SELECT " + v)`), []);
    assert.deepEqual(reported(SQLI, `${param}\nv = "fixed" if limit > 100 else p\ncur.execute("SELECT " + v)`), [4]);
    const cases = (subject: string) => `${param}\nmodes = "ABC"\nmatch ${subject}:\n    case "A":\n        v = p\n    case "B":\n        v = "fixed"\n    case "C" | "D":\n        v = p\n    case _:\n        v = "other"\ncur.execute("SELECT " + v)`;
    assert.deepEqual(reported(SQLI, cases('modes[1]')), []);
    assert.deepEqual(reported(SQLI, cases('modes[2]')), [13]);
    assert.deepEqual(reported(SQLI, cases('request.args["m"]')), [13]);
    // a name bound more than once, or to something else than a number, is not a constant
    assert.deepEqual(reported(SQLI, `${param}\nlimit = int(request.args["n"])\nif limit > 10:\n    v = "fixed"\nelse:\n    v = p\ncur.execute("SELECT " + v)`), [8]);
  });
});

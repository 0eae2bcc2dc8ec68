# Reads {"mode", "minor", "files": [{"name", "source"}]} as JSON on stdin and writes, for each file, null or
# {"line", "message"}: whether the source is valid Python for the version asked. Nothing is run: the source
# is only parsed (and compiled to bytecode, which is thrown away), so a hostile module cannot act.
#   compile  this interpreter's own compile(): the exact grammar of the version it is (2.7 and 3.x alike)
#   ast      ast.parse(feature_version=(3, minor)) on a newer Python 3: that minor's grammar, best effort
#   lib2to3  lib2to3's Python 2 grammar (print and exec statements), then a walk that refuses what the
#            grammar accepts only because it also reads Python 3 (lib2to3's grammar is a union of both)
# Written for Python 2.7 and 3.x alike, as it runs under the interpreter the checked application declares.
import json
import re
import sys
import warnings

warnings.simplefilter("ignore")


CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def ascii_or_declared(source):
    """Python 2 reads a module as ASCII unless its first or second line declares an encoding (PEP 263); compile()
    of a string does not apply that rule, importing the file does."""
    try:
        source.encode("ascii")
        return
    except UnicodeError:
        pass
    if any(CODING.match(line) for line in source.split("\n")[:2]):
        return
    line = next(i for i, text in enumerate(source.split("\n"), 1) if any(ord(ch) > 127 for ch in text))
    error = SyntaxError("Non-ASCII character without an encoding declaration; Python 2 reads the module as ASCII (PEP 263)")
    error.lineno = line
    raise error


def compile_check(name, source, minor):
    if sys.version_info[0] == 2:
        ascii_or_declared(source)
    compile(source.encode("utf-8"), name, "exec", 0, 1)


def ast_check(name, source, minor):
    import ast
    ast.parse(source, name, "exec", feature_version=(3, minor))


def keyword_only_after(kids, star, token, syms):
    """Whether a parameter list has keyword-only parameters after its `*` (a bare `*,` or a name after *args)."""
    nxt = star + 1
    if nxt >= len(kids) or kids[nxt].type == token.COMMA:
        return True
    for k in range(nxt + 1, len(kids)):
        if kids[k].type == token.DOUBLESTAR:
            return False
        if kids[k].type in (token.NAME, syms.tname, syms.vname) and kids[k - 1].type == token.COMMA:
            return True
    return False


# What lib2to3's grammar accepts that Python 2.7 does not.
def py3_only(node):
    from lib2to3.pygram import python_symbols as syms
    from lib2to3.pgen2 import token

    def leaves(n):
        if not n.children:
            yield n
        for c in n.children:
            for leaf in leaves(c):
                yield leaf

    for leaf in leaves(node):
        v = leaf.value
        if leaf.type == token.STRING:
            prefix = v[: len(v) - len(v.lstrip("rRbBuUfF"))]
            if "f" in prefix.lower():
                return leaf, "f-strings need Python 3.6"
        if leaf.type == token.NUMBER and "_" in v:
            return leaf, "underscores in numbers need Python 3.6"
        if leaf.type in (token.RARROW,):
            return leaf, "return annotations need Python 3"
        if leaf.type in (token.ASYNC, token.AWAIT):
            return leaf, "async and await need Python 3.5"
        if leaf.type == getattr(token, "COLONEQUAL", -1):
            return leaf, "assignment expressions need Python 3.8"
        if leaf.type == token.NAME and v == "nonlocal" and leaf.parent is not None and leaf.parent.type == syms.global_stmt:
            return leaf, "nonlocal needs Python 3"
        if leaf.type == token.NAME and v == "from" and leaf.parent is not None:
            if leaf.parent.type == syms.raise_stmt:
                return leaf, "raise ... from needs Python 3"
            if leaf.parent.type == getattr(syms, "yield_arg", -1):
                return leaf, "yield from needs Python 3.3"
        parent = leaf.parent
        if parent is None:
            continue
        if v == "@" and parent.type == syms.term:
            return leaf, "the @ operator needs Python 3.5"
        if v == ":" and parent.type in (syms.tname, syms.annassign):
            return leaf, "annotations need Python 3"
        if parent.type in (syms.typedargslist, syms.varargslist):
            if v == "/":
                return leaf, "positional-only parameters need Python 3.8"
            if v == "*" and keyword_only_after(parent.children, parent.children.index(leaf), token, syms):
                return leaf, "keyword-only parameters need Python 3"
        if v == "*" and parent.type == syms.star_expr:
            return leaf, "starred assignment and unpacking need Python 3"
        if v == "**" and parent.type == syms.dictsetmaker:
            return leaf, "** in a dict display needs Python 3.5"
        if v == "=" and parent.type == syms.argument and parent.parent is not None:
            owner = parent.parent.parent if parent.parent.type == syms.arglist else parent.parent
            if owner is not None and owner.type == syms.classdef:
                return leaf, "keyword arguments in a class statement need Python 3"
    return None


def lib2to3_check(name, source, minor):
    from lib2to3 import pygram, pytree
    from lib2to3.pgen2 import driver

    ascii_or_declared(source)
    grammar = pygram.python_grammar
    if "print_function" in source and "__future__" in source:
        grammar = pygram.python_grammar_no_print_statement
    tree = driver.Driver(grammar, convert=pytree.convert).parse_string(source if source.endswith("\n") else source + "\n")
    found = py3_only(tree)
    if found:
        leaf, message = found
        error = SyntaxError(message)
        error.lineno = leaf.get_lineno()
        raise error


CHECKS = {"compile": compile_check, "ast": ast_check, "lib2to3": lib2to3_check}


def main():
    raw = sys.stdin.read()
    request = json.loads(raw)
    check = CHECKS[request["mode"]]
    results = []
    for item in request["files"]:
        try:
            check(item["name"], item["source"], request.get("minor"))
            results.append(None)
        except SyntaxError as e:
            results.append({"line": e.lineno, "message": str(e.msg if hasattr(e, "msg") and e.msg else e)})
        except Exception as e:  # lib2to3's ParseError, a null byte, a nesting limit: the version cannot read it
            line = getattr(e, "lineno", None)
            context = getattr(e, "context", None)
            if line is None and context:
                try:
                    line = context[1][0]
                except Exception:
                    line = None
            results.append({"line": line, "message": "%s: %s" % (type(e).__name__, str(e).split("\n")[0][:200])})
    sys.stdout.write(json.dumps(results))


main()

#!/usr/bin/env python3
"""Reference outline of Python files, computed with CPython's own `ast`.

Usage: python3 python_ast.py DIR

Walks every `*.py` file below DIR (sorted; directories are not followed
through symlinks; only `DIR/site-packages` is skipped, as it is not part of the
standard library), parses each with `ast.parse(source_bytes)` (so CPython
decodes the file itself, honouring PEP 263 coding declarations and a UTF-8
BOM) and prints one JSON object per file, in walk order:

    {"path": "relative/path.py", "ok": true, "error": null,
     "symbols": [[qualname, kind, start_line, end_line], ...]}

`ok` is false, `error` holds the exception and `symbols` is empty when the file
cannot be read or CPython rejects it.

The symbols are the ones ast-outline reports with kinds class/function/method
(see lang-python/src/symbols.rs):

- every `class`, `def` and `async def`, at any depth (inside functions,
  classes and every compound statement);
- a binding of a lambda, `name = lambda ...` (each plain-name target of the
  statement: `a = b = lambda: 0` binds two) or `name: T = lambda ...`, when
  the statement belongs to a module or a class body (also inside if/try/for/
  with/while/match blocks there), not to a function body.

kind: "class" for a class, "method" for a def whose nearest enclosing scope
is a class body, "function" for every other def and for every lambda binding.
qualname: the names of the enclosing classes and functions joined with '.'
(Python's __qualname__ without `<locals>`). start_line: the line of the `@`
of the first decorator, else the statement's line; end_line: the statement's
end_lineno. (A decorator's own `lineno` is that of its expression, which is
not the `@` line when a parenthesis or a backslash continuation puts the
expression on a later line; the `@` line is found by looking back from the
expression for the line starting with `@`: only parentheses, comments and
line continuations can stand between them.)

Standard library only; needs CPython 3.8+ (end_lineno); tested with 3.8-3.13.
"""

import ast
import importlib.util
import json
import os
import sys

MODULE, CLASS, FUNCTION = "module", "class", "function"

# Nodes that hold statement lists without being statements (`match` is 3.10+).
CLAUSES = (ast.excepthandler,) + ((ast.match_case,) if hasattr(ast, "match_case") else ())


def clean(text):
    """Text safe for strict JSON readers (no lone surrogates)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def source_lines(source):
    r"""The decoded lines of `source` (bytes), numbered as CPython numbers them:
    lines end at \n, \r\n or a lone \r."""
    text = importlib.util.decode_source(source)  # universal newlines
    return text.split("\n")


def at_line(lines, expression_line):
    """The line of the `@` introducing a decorator whose expression starts on
    `expression_line`."""
    line = expression_line
    while line >= 1 and not lines[line - 1].lstrip(" \t\f").startswith("@"):
        line -= 1
    if line < 1:
        raise AssertionError(f"no '@' line before line {expression_line}")
    return line


def start_line(node, lines):
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        return min([node.lineno] + [at_line(lines(), d.lineno) for d in decorators])
    return node.lineno


def qualify(prefix, name):
    return f"{prefix}.{name}" if prefix else name


def symbols_of(tree, source):
    out = []
    cache = []

    def lines():
        if not cache:
            cache.append(source_lines(source))
        return cache[0]

    def emit(qualname, kind, node):
        out.append([clean(qualname), kind, start_line(node, lines), node.end_lineno])

    def statements(body, scope, prefix):
        for stmt in body:
            statement(stmt, scope, prefix)

    def statement(stmt, scope, prefix):
        if isinstance(stmt, ast.ClassDef):
            qualname = qualify(prefix, stmt.name)
            emit(qualname, "class", stmt)
            statements(stmt.body, CLASS, qualname)
            return
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            qualname = qualify(prefix, stmt.name)
            emit(qualname, "method" if scope == CLASS else "function", stmt)
            statements(stmt.body, FUNCTION, qualname)
            return
        if scope != FUNCTION:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Lambda):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        emit(qualify(prefix, target.id), "function", stmt)
            elif (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.value, ast.Lambda)
                and isinstance(stmt.target, ast.Name)
            ):
                emit(qualify(prefix, stmt.target.id), "function", stmt)
        # Any other statement: look through every nested statement list
        # (bodies, else/finally clauses, except handlers, match cases) in the
        # same scope. Expressions never hold statements.
        nested(stmt, scope, prefix)

    def nested(node, scope, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                statement(child, scope, prefix)
            elif isinstance(child, CLAUSES):
                nested(child, scope, prefix)

    statements(tree.body, MODULE, "")
    return out


def python_files(root):
    for directory, dirnames, filenames in os.walk(root):
        dirnames.sort()
        if directory == root and "site-packages" in dirnames:
            dirnames.remove("site-packages")
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                yield os.path.relpath(path, root).replace(os.sep, "/"), path


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: python_ast.py DIR")
    root = sys.argv[1]
    if not os.path.isdir(root):
        sys.exit(f"not a directory: {root}")
    # Deeply nested test inputs must not hit the recursion limit here.
    sys.setrecursionlimit(100_000)
    out = sys.stdout
    for relative, path in python_files(root):
        record = {"path": relative, "ok": True, "error": None, "symbols": []}
        try:
            with open(path, "rb") as f:
                source = f.read()
            record["symbols"] = symbols_of(ast.parse(source, filename=relative), source)
        except (SyntaxError, ValueError, OSError, RecursionError, MemoryError) as e:
            record["ok"] = False
            record["symbols"] = []
            record["error"] = clean(f"{type(e).__name__}: {e}")
        out.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()

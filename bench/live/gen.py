#!/usr/bin/env python3
"""Generates a realistic, deterministic project for bench/live.sh.

    gen.py OUT_DIR MANIFEST.json [--py-packages 80] [--py-per-package 50]
                                 [--ts-dirs 20] [--ts-per-dir 50] [--seed 1]

Default: 80 Python packages of 50 files (an `__init__.py` and 49 modules:
4,000 files) and 20 TypeScript directories of 50 files (1,000 files), 5,000
files in all, each about 50-150 lines: a docstring or header comment,
imports from other modules of the project (`from pkg_012.mod_07 import
load_order, OrderStore` / `import { parseItem, ItemCache } from
'../feature_03/file_12'`), constants, classes with methods, top-level
functions, and calls across files through those imports. The same seed
gives the same bytes.

MANIFEST.json (written outside the tree) lists every file and, for the
references benchmark, cross-file uses: a top-level function (its file, the
0-based line and character of its name) and a file that imports it.
Standard library only.
"""

import argparse
import json
import os
import random

VERBS = [
    "load", "save", "parse", "render", "build", "compute", "fetch", "update",
    "merge", "split", "validate", "convert", "apply", "collect", "resolve",
    "format", "encode", "decode", "filter", "sort", "scan", "check", "emit",
    "create", "remove", "find", "index", "refresh", "normalize", "schedule",
]
NOUNS = [
    "order", "item", "user", "account", "invoice", "record", "config", "token",
    "session", "report", "event", "payload", "message", "batch", "entry",
    "profile", "ticket", "route", "query", "result", "metric", "shipment",
    "address", "price", "cart", "product", "review", "channel", "queue", "job",
]
ADJS = ["Base", "Simple", "Cached", "Remote", "Local", "Async", "Default",
        "Shared", "Lazy", "Secure", "Fast", "Plain", "Smart", "Raw", "Core"]
ROLES = ["Store", "Manager", "Service", "Builder", "Handler", "Client",
         "Registry", "Parser", "Cache", "Loader", "Queue", "Router", "Model"]


class Module:
    """One generated file's public names, known before any file is written
    (so that imports may point anywhere)."""

    def __init__(self, path, language, functions, classes):
        self.path = path
        self.language = language
        self.functions = functions  # top-level function names
        self.classes = classes  # [(class name, [method names])]


def unique_names(rng, count, make, taken=None):
    taken = set() if taken is None else taken
    out = []
    while len(out) < count:
        name = make(rng)
        if name not in taken:
            taken.add(name)
            out.append(name)
    return out


def py_name(rng):
    return f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}"


def ts_name(rng):
    noun = rng.choice(NOUNS)
    return f"{rng.choice(VERBS)}{noun[0].upper()}{noun[1:]}"


def class_name(rng):
    noun = rng.choice(NOUNS)
    return f"{rng.choice(ADJS)}{noun[0].upper()}{noun[1:]}{rng.choice(ROLES)}"


def plan(rng, args):
    """Every module's names."""
    modules = []
    for p in range(args.py_packages):
        for m in range(args.py_per_package):
            if m == 0:
                path = f"pkg_{p:03d}/__init__.py"
            else:
                path = f"pkg_{p:03d}/mod_{m:02d}.py"
            taken = set()
            functions = unique_names(rng, rng.randint(2, 5), py_name, taken)
            classes = []
            if m != 0:
                for cname in unique_names(rng, rng.randint(1, 2), class_name, taken):
                    methods = unique_names(rng, rng.randint(1, 4), py_name)
                    classes.append((cname, methods))
            modules.append(Module(path, "python", functions, classes))
    for d in range(args.ts_dirs):
        for f in range(args.ts_per_dir):
            path = f"web/feature_{d:02d}/file_{f:02d}.ts"
            taken = set()
            functions = unique_names(rng, rng.randint(2, 5), ts_name, taken)
            classes = []
            for cname in unique_names(rng, rng.randint(1, 2), class_name, taken):
                methods = unique_names(rng, rng.randint(1, 4), ts_name)
                classes.append((cname, methods))
            modules.append(Module(path, "typescript", functions, classes))
    return modules


def py_module_name(path):
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def gen_python(rng, module, py_modules, uses):
    """The text of one Python module; appends cross-file uses to `uses`."""
    lines = []
    out = lines.append
    out(f'"""{module.path}: {rng.choice(NOUNS)} handling for the '
        f'{rng.choice(NOUNS)} pipeline (generated)."""')
    out("")
    out("import logging")
    out("import os")
    out("from typing import Any, Optional")
    out("")
    # Imports of other modules' names (from modules with some functions or
    # classes): 2-4 `from X import a, B` and one `import X as alias`.
    imported_functions = []  # (name, source module)
    imported_classes = []
    others = [m for m in py_modules if m is not module]
    for source in rng.sample(others, rng.randint(2, 4)):
        names = rng.sample(source.functions, min(len(source.functions), rng.randint(1, 2)))
        cls = [c for c, _ in source.classes[:1]] if source.classes and rng.random() < 0.6 else []
        out(f"from {py_module_name(source.path)} import {', '.join(names + cls)}")
        imported_functions += [(n, source) for n in names]
        imported_classes += [(c, source) for c in cls]
    alias_source = rng.choice(others)
    out(f"import {py_module_name(alias_source.path)} as {alias_source.path.split('/')[-1][:-3].strip('_')}_mod")
    alias = f"{alias_source.path.split('/')[-1][:-3].strip('_')}_mod"
    out("")
    out("log = logging.getLogger(__name__)")
    out(f"DEFAULT_{rng.choice(NOUNS).upper()}_LIMIT = {rng.randint(10, 1000)}")
    out(f"{rng.choice(NOUNS).upper()}_PREFIX = \"{rng.choice(NOUNS)}-\"")
    out("")

    def call_expr():
        """A call of something visible here."""
        r = rng.random()
        if imported_functions and r < 0.45:
            return f"{rng.choice(imported_functions)[0]}(value)"
        if r < 0.6:
            return f"{alias}.{rng.choice(alias_source.functions)}(value)"
        if imported_classes and r < 0.75:
            cname, source = rng.choice(imported_classes)
            return f"{cname}()"
        return f"{rng.choice(module.functions)}(value)"

    def body(indent, depth=0):
        pad = " " * indent
        kind = rng.randint(0, 3)
        if kind == 0:
            out(f"{pad}result = {call_expr()}")
            out(f"{pad}if result is None:")
            out(f"{pad}    log.debug(\"nothing for %s\", value)")
            out(f"{pad}    return None")
            out(f"{pad}return result")
        elif kind == 1:
            out(f"{pad}items = []")
            out(f"{pad}for part in str(value).split(\",\"):")
            out(f"{pad}    part = part.strip()")
            out(f"{pad}    if not part:")
            out(f"{pad}        continue")
            out(f"{pad}    items.append({call_expr().replace('(value)', '(part)')})")
            out(f"{pad}return items")
        elif kind == 2:
            out(f"{pad}try:")
            out(f"{pad}    data = {call_expr()}")
            out(f"{pad}except (KeyError, ValueError) as error:")
            out(f"{pad}    log.warning(\"failed: %s\", error)")
            out(f"{pad}    data = {{}}")
            out(f"{pad}return data")
        else:
            out(f"{pad}total = 0")
            out(f"{pad}while total < {rng.randint(3, 50)}:")
            out(f"{pad}    total += len(str({call_expr()}))")
            out(f"{pad}return total")

    for cname, methods in module.classes:
        base = ""
        if imported_classes and rng.random() < 0.3:
            base = f"({rng.choice(imported_classes)[0]})"
        out(f"class {cname}{base}:")
        out(f"    \"\"\"A {rng.choice(NOUNS)} {rng.choice(ROLES).lower()}.\"\"\"")
        out("")
        out("    def __init__(self, name: str = \"\", limit: int = 10) -> None:")
        out("        self.name = name")
        out("        self.limit = limit")
        out("        self._seen: dict[str, Any] = {}")
        for meth in methods:
            out("")
            out(f"    def {meth}(self, value: Any) -> Optional[Any]:")
            out(f"        \"\"\"{meth.replace('_', ' ').capitalize()}.\"\"\"")
            body(8)
        out("")
        out("")
    for fname in module.functions:
        decorated = rng.random() < 0.1
        if decorated:
            out("@functools.lru_cache(maxsize=None)")
        out(f"def {fname}(value: Any = None) -> Any:")
        out(f"    \"\"\"{fname.replace('_', ' ').capitalize()} from the value.\"\"\"")
        body(4)
        out("")
        out("")
    if any("functools" in l for l in lines):
        lines.insert(4, "import functools")
    # Cross-file uses: each imported function, as defined in its module.
    for name, source in imported_functions:
        uses.append({"def_path": source.path, "name": name, "use_path": module.path})
    out(f"def main() -> int:")
    out(f"    for value in os.environ.get(\"{module.path.upper().replace('/', '_').replace('.', '_')}\", \"\").split():")
    for fname in module.functions[:2]:
        out(f"        {fname}(value)")
    out("    return 0")
    return "\n".join(lines) + "\n"


def ts_import_path(src, dst):
    rel = os.path.relpath(dst[:-3], os.path.dirname(src))
    return rel if rel.startswith(".") else "./" + rel


def gen_typescript(rng, module, ts_modules, uses):
    lines = []
    out = lines.append
    out(f"// {module.path}: the {rng.choice(NOUNS)} {rng.choice(ROLES).lower()} (generated).")
    imported_functions = []
    imported_classes = []
    others = [m for m in ts_modules if m is not module]
    for source in rng.sample(others, rng.randint(2, 4)):
        names = rng.sample(source.functions, min(len(source.functions), rng.randint(1, 2)))
        cls = [c for c, _ in source.classes[:1]] if rng.random() < 0.6 else []
        out(f"import {{ {', '.join(names + cls)} }} from '{ts_import_path(module.path, source.path)}';")
        imported_functions += [(n, source) for n in names]
        imported_classes += [(c, source) for c in cls]
    out("")
    iface = f"{module.classes[0][0]}Options"
    out(f"export interface {iface} {{")
    out("  name: string;")
    out("  limit?: number;")
    out(f"  {rng.choice(NOUNS)}Id: string;")
    out("}")
    out("")
    out(f"export const DEFAULT_LIMIT = {rng.randint(10, 500)};")
    out("")

    def call_expr(arg="value"):
        r = rng.random()
        if imported_functions and r < 0.5:
            return f"{rng.choice(imported_functions)[0]}({arg})"
        if imported_classes and r < 0.7:
            return f"new {rng.choice(imported_classes)[0]}()"
        return f"{rng.choice(module.functions)}({arg})"

    def body(pad):
        kind = rng.randint(0, 2)
        if kind == 0:
            out(f"{pad}const result = {call_expr()};")
            out(f"{pad}if (result === undefined) {{")
            out(f"{pad}  return null;")
            out(f"{pad}}}")
            out(f"{pad}return result;")
        elif kind == 1:
            out(f"{pad}const items: unknown[] = [];")
            out(f"{pad}for (const part of String(value).split(',')) {{")
            out(f"{pad}  if (!part.trim()) continue;")
            out(f"{pad}  items.push({call_expr('part')});")
            out(f"{pad}}}")
            out(f"{pad}return items;")
        else:
            out(f"{pad}try {{")
            out(f"{pad}  return {call_expr()};")
            out(f"{pad}}} catch (error) {{")
            out(f"{pad}  console.warn('failed', error);")
            out(f"{pad}  return null;")
            out(f"{pad}}}")

    for cname, methods in module.classes:
        base = ""
        if imported_classes and rng.random() < 0.3:
            base = f" extends {rng.choice(imported_classes)[0]}"
        out(f"/** A {rng.choice(NOUNS)} {rng.choice(ROLES).lower()}. */")
        out(f"export class {cname}{base} {{")
        out("  private seen = new Map<string, unknown>();")
        out("")
        out(f"  constructor(private readonly options?: {iface}) {{")
        out("    " + ("super();" if base else "void options;"))
        out("  }")
        for meth in methods:
            out("")
            out(f"  {meth}(value: unknown): unknown {{")
            body("    ")
            out("  }")
        out("}")
        out("")
    for fname in module.functions:
        out(f"/** {fname} from a value. */")
        out(f"export function {fname}(value?: unknown): unknown {{")
        body("  ")
        out("}")
        out("")
    for name, source in imported_functions:
        uses.append({"def_path": source.path, "name": name, "use_path": module.path})
    return "\n".join(lines) + "\n"


def def_positions(text, language, names):
    """0-based (line, character) of each top-level function name."""
    found = {}
    for i, line in enumerate(text.split("\n")):
        if language == "python" and line.startswith("def "):
            name = line[4:].split("(", 1)[0]
            found.setdefault(name, (i, 4))
        elif language == "typescript" and line.startswith("export function "):
            name = line[len("export function "):].split("(", 1)[0]
            found.setdefault(name, (i, len("export function ")))
    return {n: found[n] for n in names if n in found}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("manifest")
    parser.add_argument("--py-packages", type=int, default=80)
    parser.add_argument("--py-per-package", type=int, default=50)
    parser.add_argument("--ts-dirs", type=int, default=20)
    parser.add_argument("--ts-per-dir", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    modules = plan(rng, args)
    py_modules = [m for m in modules if m.language == "python"]
    ts_modules = [m for m in modules if m.language == "typescript"]
    uses = []
    files = []
    positions = {}
    total_lines = 0
    for module in modules:
        if module.language == "python":
            text = gen_python(rng, module, py_modules, uses)
        else:
            text = gen_typescript(rng, module, ts_modules, uses)
        path = os.path.join(args.out, module.path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        total_lines += text.count("\n")
        files.append({"path": module.path, "language": module.language,
                      "lines": text.count("\n")})
        positions[module.path] = def_positions(text, module.language, module.functions)
    for use in uses:
        line, character = positions[use["def_path"]][use["name"]]
        use["def_line"], use["def_character"] = line, character
    with open(os.path.join(args.out, "tsconfig.json"), "w") as f:
        json.dump({"compilerOptions": {"target": "es2020", "module": "es2020",
                                       "strict": True}, "include": ["web"]}, f, indent=2)
    with open(args.manifest, "w") as f:
        json.dump({"files": files, "uses": uses, "lines": total_lines}, f)
    lengths = sorted(x["lines"] for x in files)
    print(f"generated {len(files)} files ({len(py_modules)} Python, {len(ts_modules)} "
          f"TypeScript), {total_lines} lines, {len(uses)} cross-file uses; lines per file "
          f"min {lengths[0]} median {lengths[len(lengths) // 2]} max {lengths[-1]}")


if __name__ == "__main__":
    main()

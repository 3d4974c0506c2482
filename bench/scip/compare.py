#!/usr/bin/env python3
"""Precision and recall of ast-outline's cross-file references against a SCIP
indexer's (scip-python, scip-typescript, rust-analyzer's `scip` command), project
by project.

    compare.py [--work DIR] [--json] [--examples N] PROJECT...

For each PROJECT it reads (DIR defaults to bench/scip/work):
  DIR/PROJECT/                   the project's source tree (the indexed root)
  DIR/out/PROJECT.scip.jsonl     the oracle's index, as printed by
                                 `cargo run -p index --example scip_dump`
  DIR/out/PROJECT.export.json    `ast-outline export --format json` of the root

Definitions are matched by (path, line of the name, name): the oracle's
definition occurrence lies on the definition's name, and the export gives the
name's line (`name_line`; the id's START_LINE is the first decorator's).
Only definitions both sides have, in files both sides indexed, count. For each
matched definition the oracle's references are the (path, line) of its
occurrences that are not definitions; ours are the (path, line) of the
references whose `target` is that definition (status `resolved`), and, for the
second figure, also those listing it among their `candidates`.

Precision = |ours & oracle| / |ours|, recall = |ours & oracle| / |oracle|,
summed over the definitions (micro-averaged).

Every reference the oracle has and we lack (a miss), and every one we have and
it lacks (a false positive), is classified by a simple look at the source
text there (the receiver before a dot, the statement around it); the
classifier is a debugging aid, not a parser.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent

DEFINITION = 1
CONSTRUCTOR = "`<constructor>`()."
SOURCE_LANGUAGES = {"python", "typescript", "javascript", "rust"}


def fail(message: str) -> None:
    print(f"compare.py: error: {message}", file=sys.stderr)
    sys.exit(2)


# --- inputs ---------------------------------------------------------------


@dataclass
class Occurrence:
    path: str
    line: int  # 1-based
    col: int  # 0-based, in the indexer's code units
    end_col: int
    multiline: bool
    symbol: str
    roles: int


def load_scip(path: Path) -> tuple[dict, set[str], list[Occurrence]]:
    if not path.is_file():
        fail(f"missing oracle dump {path} (run scip_dump on the project's .scip file)")
    metadata: dict = {}
    documents: set[str] = set()
    occurrences: list[Occurrence] = []
    with path.open(encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            try:
                row = json.loads(text)
            except json.JSONDecodeError as e:
                fail(f"{path}:{number}: not JSON ({e})")
            kind = row.get("type")
            if kind == "metadata":
                metadata = row
            elif kind == "document":
                documents.add(row["path"])
            elif kind == "occurrence":
                r = row["range"]
                if len(r) == 3:
                    line, col, end_line, end_col = r[0], r[1], r[0], r[2]
                elif len(r) == 4:
                    line, col, end_line, end_col = r
                else:
                    continue
                symbol = row["symbol"]
                roles = row["symbol_roles"]
                if not roles & DEFINITION and symbol.endswith(CONSTRUCTOR):
                    # scip-typescript gives `new C()` (and `super()`) to C's
                    # constructor; ours gives it to the class C.
                    symbol = symbol[: -len(CONSTRUCTOR)]
                occurrences.append(
                    Occurrence(row["path"], line + 1, col, end_col, end_line != line, symbol, roles)
                )
    if not metadata:
        fail(f"{path} has no metadata line: is it a scip_dump output?")
    return metadata, documents, occurrences


def load_export(path: Path) -> dict:
    if not path.is_file():
        fail(f"missing export {path} (run `ast-outline export --format json --db DB`)")
    try:
        export = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        fail(f"{path}: not JSON ({e})")
    if export.get("format") != "ast-outline-index" or export.get("version") != 1:
        fail(f"{path}: not an ast-outline export of version 1")
    return export


class Sources:
    """The project's files, read on demand, as lists of lines."""

    def __init__(self, root: Path):
        self.root = root
        self.cache: dict[str, list[str]] = {}

    def lines(self, path: str) -> list[str]:
        if path not in self.cache:
            try:
                text = (self.root / path).read_text(encoding="utf-8", errors="replace")
            except OSError as e:
                fail(f"cannot read source {self.root / path}: {e}")
            self.cache[path] = text.splitlines()
        return self.cache[path]

    def line(self, path: str, line: int) -> str:
        lines = self.lines(path)
        return lines[line - 1] if 0 < line <= len(lines) else ""


# --- the oracle's symbols -------------------------------------------------


def descriptor_kind(symbol: str) -> str:
    """The kind of a SCIP symbol by its last descriptor's suffix."""
    if symbol.endswith("/"):
        return "namespace"
    if symbol.endswith("#"):
        return "type"
    if symbol.endswith(")."):
        return "method"
    if symbol.endswith(")"):
        return "parameter"
    if symbol.endswith("]"):
        return "type_parameter"
    if symbol.endswith(":"):
        return "meta"
    if symbol.endswith("."):
        return "term"
    return "other"


# Which oracle symbol one of our definitions matches when several are defined
# at the same name (a TypeScript constructor's parameter property is both a
# parameter and a field).
KIND_PREFERENCE = {"type": 0, "method": 1, "term": 2, "meta": 3, "type_parameter": 4, "parameter": 5}


# --- the comparison -------------------------------------------------------


@dataclass
class Unit:
    """One definition both sides have: the oracle's symbol and our ids."""

    symbol: str
    ids: list[str]
    kind: str
    path: str
    line: int
    oracle: dict[tuple[str, int], int] = field(default_factory=dict)  # (path, line) -> col
    resolved: dict[tuple[str, int], dict] = field(default_factory=dict)  # -> our reference
    candidate: dict[tuple[str, int], dict] = field(default_factory=dict)
    # The candidates `refs` shows by default: the first candidate of a
    # reference found `name_imported` (the one definition of the name in
    # the file or in a file it imports).
    sole: dict[tuple[str, int], dict] = field(default_factory=dict)


def ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def figures(tp: int, ours: int, oracle: int) -> dict:
    return {
        "true_positives": tp,
        "ours": ours,
        "oracle": oracle,
        "precision": ratio(tp, ours),
        "recall": ratio(tp, oracle),
    }


class Tally:
    def __init__(self) -> None:
        self.defs = 0
        self.oracle = 0
        self.res = 0
        self.res_tp = 0
        self.all = 0
        self.all_tp = 0
        self.shown = 0
        self.shown_tp = 0

    def add(self, unit: Unit) -> None:
        oracle = set(unit.oracle)
        resolved = set(unit.resolved)
        everything = resolved | set(unit.candidate)
        shown = resolved | set(unit.sole)
        self.defs += 1
        self.oracle += len(oracle)
        self.res += len(resolved)
        self.res_tp += len(resolved & oracle)
        self.all += len(everything)
        self.all_tp += len(everything & oracle)
        self.shown += len(shown)
        self.shown_tp += len(shown & oracle)

    def merge(self, other: "Tally") -> None:
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def as_json(self) -> dict:
        return {
            "definitions": self.defs,
            "resolved": figures(self.res_tp, self.res, self.oracle),
            "resolved_and_candidates": figures(self.all_tp, self.all, self.oracle),
            "default": figures(self.shown_tp, self.shown, self.oracle),
        }


@dataclass
class Finding:
    """A reference one side has and the other lacks."""

    project: str
    path: str
    line: int
    col: int  # 0-based
    target: str  # our id of the definition
    cause: str = ""
    via: str = ""  # ours only
    in_candidates: bool = False  # a miss that a candidate covers
    other_side: str = ""  # what the other side has at that spot


def compare_project(name: str, work: Path) -> dict:
    root = work / name
    if not root.is_dir():
        fail(f"missing project tree {root} (run fetch.sh)")
    metadata, documents, occurrences = load_scip(work / "out" / f"{name}.scip.jsonl")
    export = load_export(work / "out" / f"{name}.export.json")
    sources = Sources(root)

    languages = {f["path"]: f["language"] for f in export["files"]}
    files = {p for p in documents if languages.get(p) in SOURCE_LANGUAGES}
    if not files:
        fail(f"{name}: the oracle and the export share no source file (wrong root?)")
    language = collections.Counter(languages[p] for p in files).most_common(1)[0][0]

    def global_symbol(occ: Occurrence) -> bool:
        return (
            occ.path in files
            and not occ.symbol.startswith("local ")
            and not occ.multiline
            and occ.end_col > occ.col
            and descriptor_kind(occ.symbol) != "namespace"
        )

    # The oracle's definitions in project files, by (path, name line, name);
    # and every occurrence of a project symbol by the same key, for the
    # definitions the oracle records as references of an earlier one (pyright:
    # a function defined again, each @overload after the first).
    oracle_defs: dict[tuple[str, int, str], list[str]] = collections.defaultdict(list)
    oracle_at: dict[tuple[str, int, str], list[str]] = collections.defaultdict(list)
    oracle_symbols: set[str] = set()
    oracle_by_col: dict[tuple[str, int, int], Occurrence] = {}
    for occ in occurrences:
        if occ.path in files:
            oracle_by_col.setdefault((occ.path, occ.line, occ.col), occ)
        if not global_symbol(occ):
            continue
        text = sources.line(occ.path, occ.line)[occ.col : occ.end_col]
        key = (occ.path, occ.line, text)
        table = oracle_defs if occ.roles & DEFINITION else oracle_at
        if occ.symbol not in table[key]:
            table[key].append(occ.symbol)
        if occ.roles & DEFINITION:
            oracle_symbols.add(occ.symbol)

    def best(symbols: list[str]) -> str:
        return min(symbols, key=lambda s: KIND_PREFERENCE.get(descriptor_kind(s), 9))

    # Our definitions, matched to the oracle's.
    units: dict[str, Unit] = {}
    unit_of_id: dict[str, Unit] = {}
    ours_unmatched: collections.Counter[str] = collections.Counter()
    def_names: set[tuple[str, int, int]] = set()  # our definitions' names, 0-based column
    redefinitions = 0
    for sym in export["symbols"]:
        if sym["path"] not in files or sym["kind"] == "module":
            continue
        if sym["kind"] == "macro" and sym["name"].endswith("!"):
            # A Rust macro invocation (`cfg_rt! { … }`) is a symbol of the
            # outline, not a definition: its name is a reference.
            continue
        key = (sym["path"], sym["name_line"], sym["name"])
        def_names.add((sym["path"], sym["name_line"], sym["name_column"] - 1))
        matches = oracle_defs.get(key)
        if not matches:
            matches = [s for s in oracle_at.get(key, []) if s in oracle_symbols]
            redefinitions += bool(matches)
        if not matches:
            ours_unmatched[sym["kind"]] += 1
            continue
        symbol = best(matches)
        unit = units.get(symbol)
        if unit is None:
            unit = units[symbol] = Unit(symbol, [], sym["kind"], sym["path"], sym["name_line"])
        unit.ids.append(sym["id"])
        unit_of_id[sym["id"]] = unit

    # scip-typescript gives a name with merged declarations (an interface and
    # a const of the same name, a getter and its setter) every one of them at
    # each reference: such definitions are one unit here, as they are one
    # entity to TypeScript's own "find all references".
    at_position: dict[tuple[str, int, int], set[str]] = collections.defaultdict(set)
    for occ in occurrences:
        if not occ.roles & DEFINITION and occ.symbol in units:
            at_position[(occ.path, occ.line, occ.col)].add(occ.symbol)
    parent: dict[str, str] = {}

    def find(symbol: str) -> str:
        while parent.get(symbol, symbol) != symbol:
            symbol = parent[symbol]
        return symbol

    for symbols in at_position.values():
        first, *rest = sorted(symbols)
        for other in rest:
            a, b = find(first), find(other)
            if a != b:
                parent[b] = a
    merged = 0
    for symbol in list(units):
        root = find(symbol)
        if root != symbol:
            merged += 1
            target, unit = units[root], units[symbol]
            target.ids += unit.ids
            for our_id in unit.ids:
                unit_of_id[our_id] = target
    for symbol in list(units):
        units[symbol] = units[find(symbol)]

    oracle_unmatched: collections.Counter[str] = collections.Counter()
    for symbol in oracle_symbols:
        if symbol not in units:
            oracle_unmatched[descriptor_kind(symbol)] += 1

    # The oracle's references of the matched definitions (not the names of
    # our definitions: a redefinition is one on our side).
    for occ in occurrences:
        if occ.roles & DEFINITION or occ.path not in files:
            continue
        if (occ.path, occ.line, occ.col) in def_names:
            continue
        unit = units.get(occ.symbol)
        if unit is not None:
            unit.oracle.setdefault((occ.path, occ.line), occ.col)

    # Ours.
    ours_by_col: dict[tuple[str, int, int], list[dict]] = collections.defaultdict(list)
    for ref in export["references"]:
        if ref["path"] not in files:
            continue
        ours_by_col[(ref["path"], ref["line"], ref["column"] - 1)].append(ref)
        where = (ref["path"], ref["line"])
        if ref["status"] == "resolved":
            unit = unit_of_id.get(ref.get("target", ""))
            if unit is not None:
                unit.resolved.setdefault(where, ref)
        elif ref["status"] == "candidate":
            listed = ref.get("candidates") or []
            for candidate in listed:
                unit = unit_of_id.get(candidate)
                if unit is not None:
                    unit.candidate.setdefault(where, ref)
                    if ref.get("via") == "name_imported" and candidate == listed[0]:
                        unit.sole.setdefault(where, ref)

    def ours_there(unit: Unit, path: str, line: int, col: int) -> str:
        """What our index has at the oracle's reference."""
        refs = ours_by_col.get((path, line, col))
        if not refs:
            return "no reference there"
        ref = refs[0]
        status = ref["status"]
        if status == "resolved":
            target = unit_of_id.get(ref["target"])
            return "resolved to another definition" if target is not unit else "resolved (same)"
        if status == "candidate":
            if set(ref.get("candidates") or []) & set(unit.ids):
                return "candidate (this one among them)"
            return "candidate (not among them)" if ref.get("candidates") else "candidate (too many to list)"
        return status  # external, module

    # Local symbols the oracle defines in a document: real local variables.
    # A local symbol used in a document that does not define it is one the
    # oracle could not link (scip-typescript 0.4.0 gives the uses of a
    # renamed export, `export { a as b }` then `m.b()`, such a symbol).
    defined_locals = {
        (occ.path, occ.symbol)
        for occ in occurrences
        if occ.symbol.startswith("local ") and occ.roles & DEFINITION
    }

    def oracle_there(path: str, line: int, col: int) -> str:
        """What the oracle has at our reference."""
        occ = oracle_by_col.get((path, line, col))
        if occ is None:
            return "oracle: no occurrence there"
        if occ.symbol.startswith("local "):
            if (path, occ.symbol) in defined_locals:
                return "oracle: a local variable there"
            return LOCAL_THERE
        if descriptor_kind(occ.symbol) == "namespace":
            return "oracle: a module there"
        if occ.symbol in units:
            return "oracle: another definition"
        if occ.symbol in oracle_symbols:
            return "oracle: a definition we do not have"
        return "oracle: outside the project"

    total = Tally()
    by_kind: dict[str, Tally] = collections.defaultdict(Tally)
    misses: list[Finding] = []
    false_positives: list[Finding] = []
    for unit in {id(u): u for u in units.values()}.values():
        total.add(unit)
        by_kind[unit.kind].add(unit)
        target = unit.ids[0]
        for where, col in unit.oracle.items():
            if where not in unit.resolved:
                misses.append(
                    Finding(name, where[0], where[1], col, target,
                            in_candidates=where in unit.candidate,
                            other_side=ours_there(unit, where[0], where[1], col))
                )
        for where, ref in unit.resolved.items():
            if where not in unit.oracle:
                col = ref["column"] - 1
                false_positives.append(
                    Finding(name, where[0], where[1], col, target, via=ref["via"],
                            other_side=oracle_there(where[0], where[1], col))
                )
    for finding in misses + false_positives:
        finding.cause = classify(language, sources, finding.path, finding.line, finding.col)

    return {
        "name": name,
        "language": language,
        "oracle_tool": f"{metadata.get('tool', '?')} {metadata.get('version', '?')}",
        "files": len(files),
        "oracle_definitions": len(oracle_symbols),
        "oracle_definitions_unmatched": dict(oracle_unmatched.most_common()),
        "our_definitions_unmatched": dict(ours_unmatched.most_common()),
        "matched_by_redefinition": redefinitions,
        "merged_declarations": merged,
        "total": total,
        "by_kind": by_kind,
        "misses": misses,
        "false_positives": false_positives,
        "sources": sources,
        "kinds": {i: u.kind for u in units.values() for i in u.ids},
    }


# --- the classifier -------------------------------------------------------

WORD = r"[A-Za-z_$][\w$]*"


def in_string(text: str, col: int, python: bool) -> bool:
    """Whether column `col` of the line lies inside a string literal that
    opened on this line (a simple scan: quotes, backslash escapes, the code
    inside a template literal's `${...}` and a Python f-string's `{...}`)."""
    quote = ""  # the open string's quote, "" in code
    formatted = False  # the open string is an f-string or a template literal
    stack: list[list] = []  # [quote, formatted, brace depth] of the strings around code
    i = 0
    end = min(col, len(text))
    while i < end:
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if formatted and (text.startswith("${", i) if quote == "`" else c == "{"):
                if quote != "`" and text.startswith("{{", i):
                    i += 2
                    continue
                stack.append([quote, formatted, 0])
                i += 2 if quote == "`" else 1
                quote = ""
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
            i += 1
            continue
        if python and c == "#":
            return False
        if c in "\"'`":
            prefix = re.search(r"[A-Za-z]*$", text[:i]).group(0).lower()
            quote = text[i : i + 3] if text.startswith(c * 3, i) and c != "`" else c
            formatted = c == "`" or (python and "f" in prefix)
            i += len(quote)
            continue
        if c == "{" and stack:
            stack[-1][2] += 1
        elif c == "}" and stack:
            if stack[-1][2] == 0:
                quote, formatted, _ = stack.pop()
            else:
                stack[-1][2] -= 1
        i += 1
    return bool(quote)


def import_context(language: str, lines: list[str], line: int) -> str | None:
    text = lines[line - 1].lstrip()
    if language == "python":
        if re.match(r"(from\s+\S+\s+)?import\b", text):
            return "import statement"
        for back in range(line - 2, max(-1, line - 60), -1):
            prev = lines[back].lstrip()
            if ")" in prev:
                return None
            if re.match(r"from\s+\S+\s+import\s*\(", prev):
                return "import statement (multi-line)"
        return None
    if re.match(r"import\b", text) or re.match(r"export\s+(type\s+)?(\*|\{).*\bfrom\b", text):
        return "import/export statement"
    if re.match(r"export\s+(type\s+)?\{", text):
        return "export list"
    for back in range(line - 2, max(-1, line - 80), -1):
        prev = lines[back].lstrip()
        if "}" in prev or ";" in prev:
            return None
        if re.match(r"import\s+(type\s+)?\{", prev):
            return "import statement (multi-line)"
        if re.match(r"export\s+(type\s+)?\{", prev):
            return "export list (multi-line)"
    return None


def enclosing_python_def(lines: list[str], line: int) -> tuple[int, str] | None:
    """The line (1-based) and signature text of the `def` around `line`."""
    indent = len(lines[line - 1]) - len(lines[line - 1].lstrip())
    for back in range(line - 2, -1, -1):
        prev = lines[back]
        stripped = prev.lstrip()
        if not stripped or stripped[0] in "#)]}":  # a comment, the end of a bracket
            continue
        prev_indent = len(prev) - len(stripped)
        if prev_indent < indent:
            if re.match(r"(async\s+)?def\s", stripped):
                signature = []
                for k in range(back, min(len(lines), back + 40)):
                    signature.append(lines[k])
                    if re.search(r"\)\s*(->.*)?:\s*(#.*)?$", lines[k]):
                        break
                return back + 1, "\n".join(signature)
            if stripped.startswith("class "):
                return None
            indent = prev_indent
    return None


def receiver_origin_python(lines: list[str], line: int, col: int, name: str) -> str:
    word = rf"\b{re.escape(name)}\b"
    here = lines[line - 1]
    if re.search(rf"\blambda\b[^:]*{word}[^:]*:", here[:col]):
        return "callback parameter"
    if re.search(rf"\bfor\s+[\w\s,()]*{word}[\w\s,()]*\s+in\b", here):
        return "for/comprehension variable"
    found = enclosing_python_def(lines, line)
    start = 0
    if found is not None:
        def_line, signature = found
        params = signature[signature.find("(") + 1 :]
        params = re.sub(r"\)\s*(->.*)?:\s*(#.*)?$", "", params, flags=re.S)
        if re.search(rf"(^|[,(*\s]){re.escape(name)}\s*[:=,)]|(^|[,(*\s]){re.escape(name)}\s*$", params, re.M):
            return "receiver is a parameter"
        start = def_line
    for k in range(line - 1, start - 1, -1):
        text = lines[k] if k < line - 1 else here[:col]
        if re.search(rf"\bfor\s+[\w\s,()]*{word}[\w\s,()]*\s+in\b", text):
            return "for/comprehension variable"
        if re.search(rf"\b(with|except)\b.*\bas\s+\(?{word}", text) or re.search(rf"^\s*with\b.*\bas\s+{word}", text):
            return "with/except variable"
        if re.match(rf"\s*(\(?[\w\s,*]*,\s*)?{word}\s*(,[\w\s,*]*\)?)?(:[^=]+)?=[^=]", text) or re.search(rf"{word}\s*:=", text):
            return "receiver is a local" if found is not None else "receiver is a module-level variable"
    if found is not None:
        for k in range(0, len(lines)):
            text = lines[k]
            if re.match(rf"{word}\s*(:[^=]+)?=[^=]", text):
                return "receiver is a module-level variable"
    for text in lines:
        if re.match(rf"\s*(from\s+\S+\s+)?import\b.*{word}", text):
            return "receiver is an imported name"
        if re.match(rf"\s*class\s+{word}", text):
            return "receiver is a class"
    return "receiver is another name"


def receiver_origin_ts(lines: list[str], line: int, col: int, name: str) -> str:
    n = re.escape(name)
    here = lines[line - 1]
    for k in range(line - 1, max(-1, line - 400), -1):
        text = lines[k] if k < line - 1 else here[:col]
        if re.search(rf"\(\s*([^()]*[,\s{{\[])?{n}\b[^()]*\)\s*(:\s*[^=]*)?=>", text) or re.search(rf"(^|[^\w$.]){n}\s*=>", text):
            return "callback parameter"
        if re.search(rf"\bfor\s*\(\s*(const|let|var)\s+[^;]*\b{n}\b[^;]*\s(of|in)\s", text):
            return "for/comprehension variable"
        if re.search(rf"(^|[^.\w$])catch\s*\(\s*{n}\b", text):
            return "with/except variable"
        if re.search(rf"\b(const|let|var)\s+([^=]*[,{{\[]\s*)?{n}\b", text):
            return "receiver is a local" if text[:1].isspace() else "receiver is a module-level variable"
        if re.search(rf"(^|[^.\w$])function\b[^(]*\([^)]*\b{n}\b", text) or re.search(
            rf"^\s*(public |private |protected |static |async |get |set )*{WORD}\s*(<[^>]*>)?"
            rf"\([^)]*\b{n}\b\s*[:?,)].*\{{\s*$",
            text,
        ):
            return "receiver is a parameter"
        if re.match(rf"\s*import\b.*\b{n}\b", text):
            return "receiver is an imported name"
        if re.match(rf"\s*(export\s+)?(default\s+)?(abstract\s+)?(class|interface|enum|namespace)\s+{n}\b", text):
            return "receiver is a class/namespace"
    for text in lines[: max(0, line - 400)]:
        if re.match(rf"\s*import\b.*\b{n}\b", text):
            return "receiver is an imported name"
        if re.match(rf"\s*(export\s+)?(default\s+)?(abstract\s+)?(class|interface|enum|namespace)\s+{n}\b", text):
            return "receiver is a class/namespace"
    return "receiver is another name"


def rust_use_context(lines: list[str], line: int) -> str | None:
    """Whether `line` is in a Rust `use` declaration (one or several lines)."""
    if re.match(r"\s*(pub(\([\w\s:]*\))?\s+)?use\b", lines[line - 1]):
        return "use declaration"
    for back in range(line - 2, max(-1, line - 60), -1):
        prev = lines[back]
        if ";" in prev:
            return None
        if re.match(r"\s*(pub(\([\w\s:]*\))?\s+)?use\b", prev):
            return "use declaration (multi-line)"
    return None


def classify_rust(lines: list[str], line: int, col: int) -> str:
    text = lines[line - 1]
    before = text[:col]
    name = re.match(r"\w*", text[col:]).group(0)
    after = text[col + len(name) :]
    if in_string(text, col, False):
        return "inside a string literal"
    stripped = text.lstrip()
    if stripped.startswith("//"):
        return "in a comment (doc link)"
    if stripped.startswith("#["):
        return "attribute"
    context = rust_use_context(lines, line)
    if context:
        return context
    if re.match(r"\s*!", after):
        return "macro call"
    if re.search(r"\.\s*$", before):
        head = before.rstrip()[:-1].rstrip()
        if head.endswith(")") or head.endswith("?"):
            return "method of a call result"
        if head.endswith("]"):
            return "method of a subscript"
        chain = re.search(r"(\w+(?:\s*\.\s*\w+)*)$", head)
        if not chain:
            return "method of another expression"
        parts = [p.strip() for p in chain.group(1).split(".")]
        if parts[0] == "self":
            return "member of self" if len(parts) == 1 else "member of a field of self"
        return "member of a local/parameter" if len(parts) == 1 else "member of a field chain"
    path = re.search(r"((?:\w+|<[^<>]*>)\s*::\s*)+$", before)
    if path:
        head = re.match(r"\w+|<", path.group(0)).group(0)
        if head == "Self":
            return "Self::item"
        if head in ("crate", "self", "super"):
            return "crate::/self::/super:: path"
        if head == "<":
            return "<T as Trait>:: path"
        if head[:1].isupper():
            return "Type::item"
        return "module path a::b"
    if re.search(r"\b(impl|for|dyn)\s+([\w:<>, ]*\+\s*)?$", before) or re.search(r"[:<,+]\s*$", before):
        return "type position"
    return "bare name (call)" if re.match(r"\s*(::<[^>]*>)?\(", after) else "bare name"


def classify(language: str, sources: Sources, path: str, line: int, col: int) -> str:
    lines = sources.lines(path)
    if not 0 < line <= len(lines):
        return "other"
    if language == "rust":
        return classify_rust(lines, line, col)
    text = lines[line - 1]
    before = text[:col]
    name = re.match(r"[\w$]*", text[col:]).group(0)
    python = language == "python"
    after = text[col + len(name) :]
    if text[col : col + 1] in ("'", '"', "`") or in_string(text, col, python):
        return "string annotation / forward reference" if python else "inside a string literal"
    context = import_context(language, lines, line)
    if context:
        return context
    if re.match(r"\s*(:[^=]*)?(//|\*\*|<<|>>|[-+*/%&|^@])?=(?!=)", after) and re.match(
        r"\s*(global\s+|nonlocal\s+)?([\w$.]+\s*,\s*)*[\w$.]*$", before
    ):
        return "assignment target (write)"
    dot = re.search(r"(\?)?\.\s*$", before)
    if dot:
        head = before[: dot.start()].rstrip()
        if head.endswith(")"):
            return "receiver is a call result"
        if head.endswith("]"):
            return "receiver is a subscript"
        chain = re.search(rf"({WORD}(?:\s*\??\.\s*{WORD})*)$", head)
        if not chain:
            return "receiver is another expression"
        parts = [p.strip(" ?") for p in chain.group(1).split(".")]
        if parts[0] in ("self", "this", "cls") and len(parts) == 1:
            return "attribute of self/this"
        if len(parts) > 1:
            return "attribute chain a.b.m"
        if python:
            return receiver_origin_python(lines, line, col, parts[0])
        return receiver_origin_ts(lines, line, col, parts[0])
    stripped = text.lstrip()
    if stripped.startswith("@"):
        return "decorator"
    if python and re.match(r"(global|nonlocal)\s", stripped):
        return "global/nonlocal statement"
    if python:
        if re.match(r"\s*=[^=]", after) and before.count("(") > before.count(")"):
            return "keyword argument"
        if re.search(r"(:|->)\s*[\w\s.\[\],|]*$", before) and not re.match(r"\s*(lambda|if|else|for|while|return)\b", stripped):
            return "type annotation"
        if re.match(r"\s*class\s", stripped) and "(" in before:
            return "base class"
        return "bare name (call)" if re.match(r"\s*\(", after) else "bare name"
    angle = before.rfind("<")
    if angle > before.rfind(">") and re.search(r"\bextends\b|=", before[angle:]):
        return "generic constraint/default"
    if re.match(r"\s*[A-Z][\w$]*\s+extends\s", text) or re.match(r"\s*[A-Z][\w$]*\s*=[^=>].*[,>]\s*$", text):
        return "generic constraint/default"  # a type parameter list over several lines
    if re.search(r"\b(extends|implements)\s+([\w$.<>,\s]*,\s*)?$", before):
        return "extends/implements"
    if re.search(r"(:|\bas|\bsatisfies|\bkeyof|\btypeof|\|\s*|&\s*|<\s*)\s*[\w$.\[\]<>,\s|&]*$", before) or re.match(r"\s*type\s", stripped):
        return "type annotation"
    if re.search(r"\bnew\s+$", before):
        return "bare name (new)"
    if re.match(r"\s*:(?!:)", after) and re.search(r"(^|[{,(])\s*$", before):
        return "object literal key"
    if re.match(r"\s*([,}]|$)", after) and re.search(r"(^|[{,])\s*$", before):
        return "shorthand property"
    return "bare name (call)" if re.match(r"\s*(<[^>]*>)?\(", after) else "bare name"


# --- printing -------------------------------------------------------------


def pct(value: float | None) -> str:
    return "   -  " if value is None else f"{100 * value:5.1f}%"


def row(label: str, t: Tally, width: int) -> str:
    def cell(tp: int, ours: int) -> str:
        return f"{pct(ratio(tp, ours))} {pct(ratio(tp, t.oracle))} {tp:>6}/{ours:<6}"

    return (
        f"{label:<{width}} {t.defs:>6} {t.oracle:>7}  {cell(t.res_tp, t.res)}  "
        f"{cell(t.shown_tp, t.shown)}  {cell(t.all_tp, t.all)}"
    )


def header(width: int) -> str:
    return (
        f"{'':<{width}} {'defs':>6} {'oracle':>7}  {'resolved: P      R      tp/ours':<29}  "
        f"{'default: P       R      tp/ours':<29}  "
        f"{'resolved+candidates: P  R  tp/ours'}"
    )


def example(finding: Finding, sources: Sources) -> str:
    text = sources.line(finding.path, finding.line).strip()
    if len(text) > 110:
        text = text[:107] + "..."
    extra = f" [via {finding.via}]" if finding.via else ""
    return f"      {finding.project}/{finding.path}:{finding.line}:{finding.col + 1}{extra}  {text}"


def causes(findings: list[Finding], key) -> list[tuple[str, list[Finding]]]:
    groups: dict[str, list[Finding]] = collections.defaultdict(list)
    for f in findings:
        groups[key(f)].append(f)
    return sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))


def spread(findings: list[Finding], n: int) -> list[Finding]:
    """n examples, from different files where possible."""
    seen: set[str] = set()
    picked = []
    for f in findings:
        if f.path not in seen:
            picked.append(f)
            seen.add(f.path)
        if len(picked) == n:
            return picked
    for f in findings:
        if f not in picked:
            picked.append(f)
        if len(picked) == n:
            break
    return picked


LOCAL_THERE = "oracle: an unlinked local symbol there"


def adjusted(tally: Tally, fps: list[Finding]) -> tuple[int, float | None]:
    """Resolved precision without the ours-only references where the oracle
    has a local symbol that the document does not define: scip-typescript
    gives a renamed export's uses (`export { a as b }`, then `m.b`) such a
    symbol, so it cannot tell where they lead (checked on a three-file
    project: `z.number()` gets `local 2`, which nothing defines)."""
    n = sum(f.other_side == LOCAL_THERE for f in fps)
    return n, ratio(tally.res_tp, tally.res - n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("projects", nargs="+", metavar="PROJECT")
    parser.add_argument("--work", type=Path, default=HERE / "work",
                        help="the work dir of fetch.sh and run.sh (default: bench/scip/work)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--json-out", type=Path, metavar="FILE",
                        help="also write the figures as JSON to FILE (with the text on stdout)")
    parser.add_argument("--examples", type=int, default=3, help="examples per miss cause")
    parser.add_argument("--causes", type=int, default=12, help="miss causes shown")
    parser.add_argument("--dump", type=Path, metavar="FILE",
                        help="write every miss and false positive to FILE, a line each "
                             "(tab-separated: miss|fp, project, kind of the definition, its id, "
                             "path:line:col, cause, the other side, via, source line)")
    args = parser.parse_args()

    results = [compare_project(p, args.work) for p in args.projects]
    overall = Tally()
    overall_kind: dict[str, Tally] = collections.defaultdict(Tally)
    by_language: dict[str, Tally] = collections.defaultdict(Tally)
    language_fps: dict[str, list[Finding]] = collections.defaultdict(list)
    misses: list[Finding] = []
    fps: list[Finding] = []
    sources = {r["name"]: r["sources"] for r in results}
    for r in results:
        overall.merge(r["total"])
        by_language[r["language"]].merge(r["total"])
        language_fps[r["language"]] += r["false_positives"]
        for kind, t in r["by_kind"].items():
            overall_kind[f"{r['language']} {kind}"].merge(t)
        misses += r["misses"]
        fps += r["false_positives"]

    if args.dump:
        kinds = {}
        for r in results:
            for unit_id, kind in r["kinds"].items():
                kinds[unit_id] = kind
        with open(args.dump, "w", encoding="utf-8") as out:
            for what, findings in (("miss", misses), ("fp", fps)):
                for f in sorted(findings, key=lambda f: (f.project, f.path, f.line, f.col)):
                    text = sources[f.project].line(f.path, f.line).strip()
                    out.write("\t".join([
                        what, f.project, kinds.get(f.target, "?"), f.target,
                        f"{f.path}:{f.line}:{f.col + 1}", f.cause, f.other_side, f.via,
                        text[:200],
                    ]) + "\n")

    miss_causes = causes(misses, lambda f: f.cause)
    miss_ours = causes(misses, lambda f: f.other_side)
    fp_oracle = causes(fps, lambda f: f"{f.other_side}; via {f.via}")
    fp_causes = causes(fps, lambda f: f.cause)
    fp_groups = causes(fps, lambda f: f"{f.other_side}; via {f.via}; {f.cause}")

    if args.json or args.json_out:
        def cause_json(groups, n):
            return [
                {
                    "cause": c,
                    "count": len(fs),
                    "in_candidates": sum(f.in_candidates for f in fs),
                    "examples": [f"{f.project}/{f.path}:{f.line}:{f.col + 1}" for f in spread(fs, n)],
                }
                for c, fs in groups
            ]

        def with_adjusted(t: Tally, fs: list[Finding]) -> dict:
            n, precision = adjusted(t, fs)
            return {**t.as_json(), "resolved_precision_without_oracle_locals": precision,
                    "ours_only_at_oracle_locals": n}

        document = json.dumps({
            "projects": [
                {
                    "name": r["name"],
                    "language": r["language"],
                    "oracle": r["oracle_tool"],
                    "files": r["files"],
                    "oracle_definitions": r["oracle_definitions"],
                    "oracle_definitions_unmatched": r["oracle_definitions_unmatched"],
                    "our_definitions_unmatched": r["our_definitions_unmatched"],
                    "matched_by_redefinition": r["matched_by_redefinition"],
                    "merged_declarations": r["merged_declarations"],
                    **with_adjusted(r["total"], r["false_positives"]),
                    "by_kind": {k: t.as_json() for k, t in sorted(r["by_kind"].items())},
                }
                for r in results
            ],
            "by_language": {k: with_adjusted(t, language_fps[k]) for k, t in sorted(by_language.items())},
            "overall": with_adjusted(overall, fps),
            "by_kind": {k: t.as_json() for k, t in sorted(overall_kind.items())},
            "misses": cause_json(miss_causes, args.examples),
            "misses_by_what_ours_has_there": cause_json(miss_ours, 1),
            "false_positives": cause_json(fp_causes, args.examples),
            "false_positives_by_what_the_oracle_has_there": cause_json(fp_oracle, 1),
        }, indent=2)
        if args.json:
            print(document)
            return
        args.json_out.write_text(document + "\n", encoding="utf-8")

    width = 26

    def adjusted_line(t: Tally, fs: list[Finding]) -> str:
        n, precision = adjusted(t, fs)
        shown = ratio(t.shown_tp, t.shown - n)
        return (f"  resolved precision without the {n} ours-only lines where the oracle has an"
                f" unlinked local symbol (renamed exports): {pct(precision).strip()}"
                f" (default: {pct(shown).strip()})")

    print("Precision (P) and recall (R) of ast-outline's references against the SCIP oracle,")
    print("as (path, line) sets per matched definition; 'defs' = definitions both sides have,")
    print("'oracle' = the oracle's reference lines of those definitions.\n")
    for r in results:
        print(f"== {r['name']} ({r['language']}, {r['files']} files, oracle {r['oracle_tool']})")
        print(header(width))
        print(row("all kinds", r["total"], width))
        for kind, t in sorted(r["by_kind"].items(), key=lambda kv: -kv[1].oracle):
            print(row(f"  {kind}", t, width))
        print(adjusted_line(r["total"], r["false_positives"]))
        unmatched = r["oracle_definitions_unmatched"]
        print(
            f"  oracle definitions with no match on our side: {sum(unmatched.values())} of "
            f"{r['oracle_definitions']} ("
            + ", ".join(f"{k} {v}" for k, v in unmatched.items()) + ")"
        )
        ours = r["our_definitions_unmatched"]
        print(
            f"  our definitions with no match in the oracle: {sum(ours.values())} ("
            + ", ".join(f"{k} {v}" for k, v in ours.items()) + ")"
        )
        print(f"  our definitions matched to a name the oracle records as a reference"
              f" (a redefinition, an overload): {r['matched_by_redefinition']}")
        print(f"  oracle symbols joined to another's unit (merged declarations, get/set):"
              f" {r['merged_declarations']}\n")
    print("== overall")
    print(header(width))
    print(row("all projects", overall, width))
    for language, t in sorted(by_language.items()):
        print(row(f"  {language}", t, width))
    print(adjusted_line(overall, fps))
    for language, t in sorted(by_language.items()):
        print("  " + adjusted_line(t, language_fps[language]).strip().replace("resolved", language, 1))
    print("\n== overall by kind")
    print(header(width))
    for kind, t in sorted(overall_kind.items(), key=lambda kv: -kv[1].oracle):
        print(row(kind, t, width))

    print(f"\n== top miss causes (oracle-only reference lines against resolved: {len(misses)};"
          " 'cand' = how many a candidate covers)")
    for cause, fs in miss_causes[: args.causes]:
        print(f"  {len(fs):>6}  (cand {sum(f.in_candidates for f in fs):>5})  {cause}")
        for f in spread(fs, args.examples):
            print(example(f, sources[f.project]))
    rest = miss_causes[args.causes :]
    if rest:
        print(f"  {sum(len(fs) for _, fs in rest):>6}  in {len(rest)} more causes: "
              + ", ".join(f"{c} {len(fs)}" for c, fs in rest))
    print("\n   misses by what ast-outline has at that spot:")
    for cause, fs in miss_ours:
        print(f"  {len(fs):>6}  {cause}")

    print(f"\n== false positives (ours-only resolved reference lines: {len(fps)})")
    print("   by what the oracle has at that spot, and the rule that resolved ours:")
    for cause, fs in fp_oracle[:12]:
        print(f"  {len(fs):>6}  {cause}")
    print("   by source text:")
    for cause, fs in fp_causes[:10]:
        print(f"  {len(fs):>6}  {cause}")
    print("   examples (one of each of the 10 largest groups):")
    for cause, fs in fp_groups[:10]:
        print(f"      ({len(fs)}) {cause}")
        print(example(spread(fs, 1)[0], sources[fs[0].project]))


if __name__ == "__main__":
    main()

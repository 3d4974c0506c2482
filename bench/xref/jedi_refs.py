"""Precision and recall of `ast-outline refs` against jedi's `get_references`.

For every definition the outline lists in the files under PREFIX (a path
inside ROOT; blocks left out), two sets of reference positions are made:

- ours: `ast-outline refs ID --format json` (the resolved references only,
  unless --candidates), as (path, line, column);
- jedi's: `Script.get_references(...)` at the definition's name, restricted to
  files of the project the index holds, the definition's own name left out.

Then, summed over every definition:

- precision = positions in both / positions of ours;
- recall    = positions in both / positions of jedi's.

Columns are 1-based characters on our side and jedi's 0-based ones plus 1.
Usage (jedi pinned in requirements.txt; AST_OUTLINE names the binary, by
default `ast-outline` on PATH):

    python3 -m venv .venv && .venv/bin/pip install -r bench/xref/requirements.txt
    .venv/bin/python bench/xref/jedi_refs.py ROOT PREFIX [LIMIT]

e.g. with ROOT a copy of the standard library's `json` package's parent and
PREFIX `json/`.
"""

import collections
import json
import os
import subprocess
import sys
import tempfile

import jedi


def run(binary, args, cwd):
    out = subprocess.run(
        [binary, *args], cwd=cwd, check=True, capture_output=True, text=True
    )
    return out.stdout


def definitions(binary, root, prefix):
    """Every non-block symbol of the files under PREFIX, with its name's place."""
    found = []
    for line in run(binary, ["outline", "--no-cache", "--format", "json", prefix], root).splitlines():
        outline = json.loads(line)
        stack = list(outline.get("symbols", []))
        while stack:
            symbol = stack.pop()
            stack.extend(symbol.get("children", []))
            if symbol["kind"] == "block":
                continue
            found.append(
                (outline["path"], symbol["id"], symbol["kind"], symbol["name_line"], symbol["name_column"])
            )
    return sorted(found)


def ours(binary, root, db, symbol_id, candidates):
    args = ["refs", symbol_id, "--root", ".", "--db", db, "--no-refresh", "--format", "json"]
    if candidates:
        args.append("--candidates")
    try:
        text = run(binary, args, root)
    except subprocess.CalledProcessError:
        return set()
    places = set()
    for line in text.splitlines():
        for ref in json.loads(line).get("refs", []):
            if ref.get("status") == "resolved" or candidates:
                places.add((ref["path"], ref["line"], ref["column"]))
    return places


def main() -> None:
    root, prefix = sys.argv[1], sys.argv[2]
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 100_000
    binary = os.environ.get("AST_OUTLINE", "ast-outline")
    candidates = os.environ.get("CANDIDATES") == "1"
    root = os.path.abspath(root)
    db = os.path.join(tempfile.mkdtemp(), "index.sqlite")
    print(run(binary, ["index", ".", "--db", db], root).strip())
    indexed = set()
    for line in run(binary, ["outline", "--no-cache", "--format", "json", "."], root).splitlines():
        indexed.add(json.loads(line)["path"])
    project = jedi.Project(root)
    scripts = {}
    both = mine = theirs = 0
    by_kind = collections.defaultdict(lambda: [0, 0, 0])
    only_ours, only_jedi = [], []
    defs = definitions(binary, root, prefix)[:limit]
    for path, symbol_id, kind, line, column in defs:
        script = scripts.get(path)
        if script is None:
            script = scripts[path] = jedi.Script(path=os.path.join(root, path), project=project)
        try:
            names = script.get_references(line, column - 1, include_builtins=False)
        except Exception:  # noqa: BLE001 - jedi fails on some positions
            continue
        jedi_places = set()
        for name in names:
            if name.module_path is None or name.line is None:
                continue
            rel = os.path.relpath(str(name.module_path), root)
            place = (rel, name.line, name.column + 1)
            if rel in indexed and place != (path, line, column):
                jedi_places.add(place)
        our_places = ours(binary, root, db, symbol_id, candidates)
        common = our_places & jedi_places
        both += len(common)
        mine += len(our_places)
        theirs += len(jedi_places)
        counts = by_kind[kind]
        counts[0] += len(common)
        counts[1] += len(our_places)
        counts[2] += len(jedi_places)
        only_ours.extend((symbol_id, p) for p in sorted(our_places - jedi_places))
        only_jedi.extend((symbol_id, p) for p in sorted(jedi_places - our_places))
    precision = both / mine if mine else 0.0
    recall = both / theirs if theirs else 0.0
    print(f"definitions: {len(defs)}; references: ours {mine}, jedi {theirs}, both {both}")
    print(f"precision {precision:.3f} ({both}/{mine})")
    print(f"recall    {recall:.3f} ({both}/{theirs})")
    for kind, (b, m, t) in sorted(by_kind.items()):
        print(f"  {kind:10} both {b:5}  ours {m:5}  jedi {t:5}")
    for label, rows in (("only ours", only_ours), ("only jedi", only_jedi)):
        print(f"{label}: {len(rows)}")
        for row in rows[:12]:
            print("  ", *row)


if __name__ == "__main__":
    main()

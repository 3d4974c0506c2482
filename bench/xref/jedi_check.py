"""Precision and recall of the index's resolved references against jedi.

For every reference the index holds in the files under PREFIX (a path prefix
inside ROOT), jedi's `Script.goto(follow_imports=True)` is asked where the
name at that position is defined. A definition counts when jedi lands on a
definition the index also has (same file, same name line).

- precision = resolved references whose target is jedi's definition
              / resolved references jedi also resolves inside the project;
- recall    = references jedi resolves inside the project that the index
              resolved to the same definition / all of those.

Only positions the index extracted are asked (a name the index never saw
is not counted against recall). Usage (jedi pinned in requirements.txt):

    python3 -m venv .venv && .venv/bin/pip install -r bench/xref/requirements.txt
    ast-outline index ROOT --db /tmp/x.sqlite
    .venv/bin/python bench/xref/jedi_check.py ROOT /tmp/x.sqlite json/
"""

import os
import sqlite3
import sys

import jedi


def main() -> None:
    root, db, prefix = sys.argv[1], sys.argv[2], sys.argv[3]
    limit = int(sys.argv[4]) if len(sys.argv) > 4 else 100_000
    conn = sqlite3.connect(db)
    symbols = {
        (path, line)
        for path, line in conn.execute(
            "SELECT f.path, s.name_line FROM symbols s JOIN files f ON f.id = s.file_id"
        )
    }
    targets = {
        sid: (path, line)
        for sid, path, line in conn.execute(
            "SELECT s.key, f.path, s.name_line FROM symbols s JOIN files f ON f.id = s.file_id"
        )
    }
    rows = conn.execute(
        "SELECT f.path, r.line, r.column, r.name, r.status, r.target FROM refs r "
        "JOIN files f ON f.id = r.file_id WHERE f.path LIKE ? AND f.language = 'python' "
        "AND r.status != 3 /* module */ ORDER BY f.path, r.line, r.column LIMIT ?",
        (prefix + "%", limit),
    ).fetchall()
    project = jedi.Project(root)
    scripts = {}
    ours_resolved_and_jedi = right = jedi_found = found_by_us = 0
    wrong = []
    for path, line, column, name, status, target in rows:
        script = scripts.get(path)
        if script is None:
            script = scripts[path] = jedi.Script(path=os.path.join(root, path), project=project)
        try:
            names = script.goto(line, column - 1, follow_imports=True)
        except Exception:  # noqa: BLE001 - jedi fails on some positions
            names = []
        places = set()
        for n in names:
            if n.module_path is None or n.line is None:
                continue
            rel = os.path.relpath(str(n.module_path), root)
            if (rel, n.line) in symbols:
                places.add((rel, n.line))
        if not places:
            continue
        jedi_found += 1
        ours = targets.get(target) if status == 0 else None  # 0: resolved
        if ours is not None:
            ours_resolved_and_jedi += 1
            if ours in places:
                right += 1
                found_by_us += 1
            else:
                wrong.append((path, line, column, name, target, sorted(places)))
    precision = right / ours_resolved_and_jedi if ours_resolved_and_jedi else 0.0
    recall = found_by_us / jedi_found if jedi_found else 0.0
    print(f"references asked: {len(rows)}; jedi resolved in project: {jedi_found}")
    print(f"precision {precision:.3f} ({right}/{ours_resolved_and_jedi})")
    print(f"recall    {recall:.3f} ({found_by_us}/{jedi_found})")
    for w in wrong[:15]:
        print("  differs:", *w)


if __name__ == "__main__":
    main()

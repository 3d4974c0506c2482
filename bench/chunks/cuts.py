#!/usr/bin/env python3
"""Definitions cut mid-way, for both chunkings of bench/chunks.

A definition (every outline symbol but control-flow blocks, nested ones
included) is cut by a chunk boundary b (a chunk starts at line b) when
start < b <= end. For fixed N-line windows every such boundary counts. For
ast-outline chunks a boundary at the edge of one of the definition's members
or blocks (b = a descendant's first line, or the comment/blank lines right
above it, or the line after a descendant ends; a descendant is any symbol
within its lines) is where the chunker splits a
definition over the budget, and does not count; any other does.

Usage: cuts.py WORK_DIR CHUNKS_DIR FIXED_LINES AST_OUTLINE CORPUS...
"""
import json
import subprocess
import sys


def symbols_of(outline):
    out = []

    def walk(s):
        out.append(s)
        for c in s.get("children", []):
            walk(c)

    for s in outline.get("symbols", []):
        walk(s)
    return out


def descendants(s):
    out = []
    for c in s.get("children", []):
        out.append(c)
        out.extend(descendants(c))
    return out


def main():
    work, chunks_dir, fixed, ao, *corpora = sys.argv[1:]
    fixed = int(fixed)
    for corpus in corpora:
        chunks = [json.loads(l) for l in open(f"{chunks_dir}/{corpus}.jsonl")]
        starts = {}
        for c in chunks:
            starts.setdefault(c["path"], []).append(c["start_line"])
        # The outline the chunker used: every body's blocks (--block-threshold 1).
        text = subprocess.run(
            [ao, "outline", "--format", "json", "--block-threshold", "1", "--no-cache", "."],
            cwd=f"{work}/{corpus}", capture_output=True, text=True, check=True,
        ).stdout
        defs = fixed_cut = symbol_cut = 0
        for line in text.splitlines():
            outline = json.loads(line)
            path = outline["path"]
            lines = open(f"{work}/{corpus}/{path}", encoding="utf-8", errors="replace").read().split("\n")
            bounds = [b for b in starts.get(path, []) if b > 1]
            syms = symbols_of(outline)
            for s in syms:
                if s["kind"] == "block":
                    continue
                defs += 1
                a, e = s["start_line"], s["end_line"]
                if (a - 1) // fixed != (e - 1) // fixed:
                    fixed_cut += 1
                inner = [b for b in bounds if a < b <= e]
                if not inner:
                    continue
                # Its descendants by lines: children, and symbols listed beside it
                # within its lines (the functions of an IIFE).
                ds = [d for d in syms if d is not s and a <= d["start_line"] and d["end_line"] <= e]

                def allowed(b):
                    for d in ds:
                        if d["end_line"] + 1 == b:
                            return True
                        if d["start_line"] >= b and all(
                            (lambda t: t == "" or t.startswith(("#", "//", "/*", "*", "*/")))(lines[l - 1].strip())
                            for l in range(b, d["start_line"])
                        ):
                            return True
                    return False

                if not all(allowed(b) for b in inner):
                    symbol_cut += 1
        print(f"{corpus:<14} definitions {defs:>6}   cut by {fixed}-line windows {fixed_cut:>5} "
              f"({100 * fixed_cut / max(defs, 1):.1f}%)   cut by symbol chunks {symbol_cut}")


main()

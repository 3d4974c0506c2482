#!/usr/bin/env python3
"""Variants of the chunkings, to test whether the recall@5 gap is the chunker's.

Usage (after `bash bench/chunks/run.sh`, which writes out/<corpus>.jsonl):

    python3 bench/chunks/variants.py pack N OUT_DIR     # symbol chunks packed
    python3 bench/chunks/variants.py path OUT_DIR       # symbol chunks, path first
    python3 bench/chunks/variants.py fixed-path OUT_DIR # 200-line windows, path first

then `target/release/chunks-bench --chunks OUT_DIR ...` (see README) reads the
variant as its "symbol" side.

- pack N: adjacent chunks of one file with the same `context` (siblings in one
  container: whole definitions and groups) are merged while their tokens add
  up to at most N, as "split, then merge" chunkers do (cAST); a head is never
  merged into the chunk before it. No chunk boundary moves into a definition.
- path: the file's path is put first in each chunk's `context`, so it is
  indexed with the text.
- fixed-path: the fixed windows, written as chunks with the path as their
  only context line, so windows get the path too.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, "..", "agent", "work")
CORPORA = ["isort", "redux-toolkit", "minijinja"]


def load(corpus):
    with open(os.path.join(HERE, "out", corpus + ".jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def pack(chunks, budget):
    out = []
    for c in chunks:
        p = out[-1] if out else None
        if (
            p
            and p["path"] == c["path"]
            and p["end_line"] + 1 == c["start_line"]
            and p["context"] == c["context"]
            and c["part"] != "head"
            and p["tokens"] + c["tokens"] <= budget
        ):
            p["end_line"] = c["end_line"]
            p["text"] += c["text"]
            p["tokens"] += c["tokens"]
            p["id"] = f"{p['path']}:{p['start_line']}-{p['end_line']}"
            p["part"] = "pack"
        else:
            out.append(dict(c))
    return out


def with_path(chunks):
    return [dict(c, context=[c["path"]] + c["context"]) for c in chunks]


def fixed_path(corpus, chunks, lines_per=200):
    paths = []
    for c in chunks:
        if c["path"] not in paths:
            paths.append(c["path"])
    out = []
    for path in paths:
        with open(os.path.join(WORK, corpus, path), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines(keepends=True)
        for start in range(0, len(lines), lines_per):
            window = lines[start : start + lines_per]
            out.append(
                {
                    "id": f"{path}:{start + 1}-{start + len(window)}",
                    "path": path,
                    "start_line": start + 1,
                    "end_line": start + len(window),
                    "text": "".join(window),
                    "context": [path],
                }
            )
    return out


def main(argv):
    if len(argv) < 3 or argv[1] not in ("pack", "path", "fixed-path"):
        sys.exit(__doc__)
    kind = argv[1]
    if kind == "pack":
        if len(argv) != 4:
            sys.exit(__doc__)
        budget, out_dir = int(argv[2]), argv[3]
    else:
        out_dir = argv[2]
    os.makedirs(out_dir, exist_ok=True)
    for corpus in CORPORA:
        chunks = load(corpus)
        if kind == "pack":
            chunks = pack(chunks, budget)
        elif kind == "path":
            chunks = with_path(chunks)
        else:
            chunks = fixed_path(corpus, chunks)
        with open(os.path.join(out_dir, corpus + ".jsonl"), "w", encoding="utf-8") as f:
            for c in chunks:
                f.write(json.dumps(c) + "\n")
        print(f"{corpus}: {len(chunks)} chunks", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)

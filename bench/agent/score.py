#!/usr/bin/env python3
"""score.py [RESULTS_DIR]: calls and bytes of tool output per arm and code base,
from the `t` logs (ARM-NAME.jsonl) of an agent-benchmark run. Listing the
tools (`ao --list`) is not counted, as in ../shared/agent-bench's method.
Correctness is scored by hand against NAME/answers.md (see README.md)."""
import glob
import json
import os
import sys

results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "results")
totals = {}
print(f"{'arm':<4} {'code base':<16} {'calls':>6} {'bytes':>8}")
for path in sorted(glob.glob(os.path.join(results, "*.jsonl"))):
    arm, name = os.path.basename(path)[: -len(".jsonl")].split("-", 1)
    rows = [json.loads(line) for line in open(path) if line.strip()]
    rows = [r for r in rows if "ao --list" not in r["cmd"]]
    calls, size = len(rows), sum(r["bytes"] for r in rows)
    t = totals.setdefault(arm, [0, 0])
    t[0] += calls
    t[1] += size
    print(f"{arm:<4} {name:<16} {calls:>6} {size:>8}")
for arm, (calls, size) in sorted(totals.items()):
    print(f"{arm:<4} {'all':<16} {calls:>6} {size:>8}")
if {"A", "B"} <= totals.keys():
    print(f"A/B bytes: {totals['A'][1] / totals['B'][1]:.2f}")

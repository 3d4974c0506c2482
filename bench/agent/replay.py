#!/usr/bin/env python3
"""replay.py RESULTS_DIR [BINARY]: run arm A's logged commands again with
BINARY (default target/release/ast-outline) on fresh copies of the code
bases, and print per code base the bytes the agent saw then and the bytes
the same commands print now, and the o200k_base tokens of the ast-outline
results among them (each ends with its count).

This holds the agents' choices fixed: it measures what a change to the
tools' output saves on the calls agents actually made, not how agents would
choose differently (only a new run of the benchmark measures that). Run
bench/agent/fetch.sh first. Listing the tools (`ao --list`) is skipped, as in
score.py."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    results = sys.argv[1]
    binary = os.path.abspath(
        sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "..", "target", "release", "ast-outline")
    )
    logs = sorted(glob.glob(os.path.join(results, "A-*.jsonl")))
    if not logs:
        print(f"replay.py: no A-*.jsonl in {results}", file=sys.stderr)
        return 2
    totals = [0, 0, 0]
    print(f"{'code base':<16} {'calls':>6} {'then':>8} {'now':>8} {'now/then':>9} {'ao tokens now':>14}")
    for log in logs:
        name = os.path.basename(log)[len("A-") : -len(".jsonl")]
        source = os.path.join(HERE, "work", name)
        if not os.path.isdir(source):
            print(f"replay.py: run fetch.sh first (no work/{name})", file=sys.stderr)
            return 2
        rows = [json.loads(line) for line in open(log) if line.strip()]
        rows = [r for r in rows if "ao --list" not in r["cmd"]]
        with tempfile.TemporaryDirectory() as tmp:
            code = os.path.join(tmp, "code")
            shutil.copytree(source, code)
            env = dict(os.environ, PATH=f"{HERE}:{os.environ['PATH']}", AST_OUTLINE=binary)
            then = sum(r["bytes"] for r in rows)
            now = 0
            tokens = 0
            for row in rows:
                run = subprocess.run(
                    ["bash", "-c", row["cmd"]], cwd=code, env=env, capture_output=True, timeout=120
                )
                now += len(run.stdout) + len(run.stderr)
                # Each tool result ends with its o200k_base token count.
                tokens += sum(int(n) for n in re.findall(rb"\[(\d+) tokens?, o200k_base\]", run.stdout))
        totals[0] += then
        totals[1] += now
        totals[2] += tokens
        print(f"{name:<16} {len(rows):>6} {then:>8} {now:>8} {now / then:>9.2f} {tokens:>14}")
    print(f"{'all':<16} {'':>6} {totals[0]:>8} {totals[1]:>8} {totals[1] / totals[0]:>9.2f} {totals[2]:>14}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

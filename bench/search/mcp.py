#!/usr/bin/env python3
"""mcp.py [ROOT]: wall time of `search_code` through one running `ast-outline
mcp` server (the agents' path: the tokenizer and the outline cache are built
once per session) against `rg -n` on the same tree, in the same run.

Run bench/search/run.sh once first (it installs ripgrep into
bench/search/.tools and builds target/release/ast-outline). Prints, per
pattern, the median of 5 warm runs of each and the ratio."""
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
RG = os.path.join(HERE, ".tools", "bin", "rg")
AO = os.path.join(REPO, "target", "release", "ast-outline")
CASES = [
    ({"pattern": "let "}, ["-F", "let "]),
    ({"pattern": "excerpt("}, ["-F", "excerpt("]),
    ({"pattern": r"fn \w+_\w+\(", "regex": True}, ["-e", r"fn \w+_\w+\("]),
    ({"pattern": "todo", "case": "insensitive"}, ["-i", "todo"]),
]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else REPO)
    server = subprocess.Popen(
        [AO, "mcp", "--root", root, "--no-watch"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    ids = iter(range(1, 1 << 30))

    def call(method, params):
        wanted = next(ids)
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": wanted, "method": method, "params": params}) + "\n")
        server.stdin.flush()
        for line in server.stdout:
            message = json.loads(line)
            if message.get("id") == wanted:
                return message
        raise SystemExit("mcp.py: the server ended")

    call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
    server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    server.stdin.flush()

    def median(run):
        run()
        times = []
        for _ in range(5):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    print(f"root: {root}")
    print(f"{'pattern':<28} {'rg s':>7} {'search_code s':>14} {'ratio':>6}")
    for args, rg_args in CASES:
        rg = median(lambda: subprocess.run(
            [RG, "-n", "--no-require-git", "-g", "!__pycache__/", *rg_args, root],
            stdout=subprocess.DEVNULL, check=False))
        ao = median(lambda: call("tools/call", {"name": "search_code", "arguments": args}))
        print(f"{json.dumps(args['pattern']):<28} {rg:>7.3f} {ao:>14.3f} {ao / rg:>5.1f}x")
    server.stdin.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

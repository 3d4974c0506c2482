#!/usr/bin/env bash
# Side-by-side speed of ast-outline, Universal Ctags and the bare parsers, in
# one run on the same files. Not a test: figures depend on the machine.
#
#   bench/compare.sh                 # the three default trees
#   bench/compare.sh NAME=DIR ...    # other trees
#
# For each tree it runs, each under /usr/bin/time (wall, user+sys CPU, peak RSS):
#   ast-outline cold  `ast-outline outline --format json --no-cache DIR > /dev/null`
#   ast-outline warm  the same with `--cache-dir` (filled by one untimed run first)
#   ast-outline warm text  the default text output from the same cache (after
#                     one untimed text run, which stores each file's text)
#   ctags             `ctags --fields=+ne -f - -L FILES > /dev/null` over exactly
#                     the files ast-outline outlines (skipped when ctags is missing)
#   bare parse        `bare_parse DIR` (cli/examples/bare_parse.rs): the same walk,
#                     then ruff / swc / syn parse of every file, nothing else
# and prints the ratios cold/ctags, cold/bare and cold/warm (of wall times).
# Default trees: the Python standard library (python3's sysconfig stdlib), the
# TypeScript oracle's node_modules (`npm ci --prefix tests/oracle/ts` first),
# the crates under $CARGO_HOME/registry/src. Then one 5,000-line Python file
# (the first 5,000 lines of the stdlib's _pydecimal.py), whole process, best
# and median of RUNS (default 30) runs; with hyperfine when it is installed.
# Release builds; CARGO_TARGET_DIR is honoured.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
cargo build --release -q -p ast-outline-cli --bin ast-outline --example bare_parse
outline="$target/release/ast-outline"
bare="$target/release/examples/bare_parse"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

stdlib="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
if [ $# -eq 0 ]; then
  set -- "python-stdlib=$stdlib" "ts-node_modules=tests/oracle/ts/node_modules" \
    "rust-registry=$(ls -d "$cargo_home"/registry/src/*/ | head -1)"
fi
have_ctags=0
command -v ctags > /dev/null && ctags --version 2>/dev/null | grep -q Universal && have_ctags=1

# measure LABEL CMD...: appends "LABEL wall cpu rss_kb" to $work/rows.
measure() {
  local label="$1"; shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" > /dev/null 2> "$work/stderr" || true
  read -r wall user sys rss < "$work/time" || true
  echo "$label $wall $(echo "$user + $sys" | bc) $rss" >> "$work/rows"
}

: > "$work/rows"
for spec in "$@"; do
  name="${spec%%=*}"; dir="${spec#*=}"
  if [ ! -d "$dir" ]; then echo "skip $name: $dir is missing" >&2; continue; fi
  cache="$work/cache-$name"
  # The file list (untimed), for ctags and the summary.
  "$outline" outline --format json --no-cache --quiet "$dir" \
    | python3 -c 'import json,sys; [print(json.loads(l)["path"]) for l in sys.stdin]' > "$work/files"
  files=$(wc -l < "$work/files")
  mb=$(xargs -d '\n' cat < "$work/files" | wc -c | awk '{printf "%.1f", $1/1e6}')
  echo "$name: $files files, $mb MB ($dir)" >> "$work/trees"
  measure "$name ast-outline-cold" "$outline" outline --format json --no-cache --quiet "$dir"
  "$outline" outline --format json --cache-dir "$cache" --quiet "$dir" > /dev/null
  measure "$name ast-outline-warm" "$outline" outline --format json --cache-dir "$cache" --quiet "$dir"
  # The default text output, warm: its first run stores each file's text.
  "$outline" outline --cache-dir "$cache" --quiet "$dir" > /dev/null
  measure "$name ast-outline-warm-text" "$outline" outline --cache-dir "$cache" --quiet "$dir"
  if [ $have_ctags = 1 ]; then
    measure "$name ctags" ctags --fields=+ne -f - -L "$work/files"
  fi
  measure "$name bare-parse" "$bare" "$dir"
done

echo "ast-outline $("$outline" --version | cut -d' ' -f2), $(nproc) CPUs, $(date -u +%Y-%m-%d)"
cat "$work/trees"
python3 - "$work/rows" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    tree, tool, wall, cpu, rss = line.split()
    rows.setdefault(tree, {})[tool] = (float(wall), float(cpu), int(rss) / 1024)
print(f"| tree | tool | wall s | CPU s | peak RSS MB | ratio to ctags | ratio to bare parse |")
print(f"|---|---|---:|---:|---:|---:|---:|")
for tree, tools in rows.items():
    ctags = tools.get("ctags", (None,))[0]
    bare = tools.get("bare-parse", (None,))[0]
    for tool, (wall, cpu, rss) in tools.items():
        to_ctags = f"{wall / ctags:.2f}" if ctags and tool.startswith("ast") else ""
        to_bare = f"{wall / bare:.2f}" if bare and tool.startswith("ast") else ""
        print(f"| {tree} | {tool} | {wall:.2f} | {cpu:.2f} | {rss:.0f} | {to_ctags} | {to_bare} |")
    cold = tools.get("ast-outline-cold")
    for label, warm in (("warm", tools.get("ast-outline-warm")), ("warm text", tools.get("ast-outline-warm-text"))):
        if cold and warm and warm[0] > 0:
            print(f"| {tree} | cold / {label} | {cold[0] / warm[0]:.1f}x | {cold[1] / max(warm[1], 0.005):.1f}x | | | |")
PY

# One 5,000-line file, whole process.
head -n 5000 "$stdlib/_pydecimal.py" > "$work/five_thousand.py"
runs="${RUNS:-30}"
if command -v hyperfine > /dev/null; then
  hyperfine -N --warmup 3 --runs "$runs" "$outline outline --no-cache $work/five_thousand.py"
else
  python3 - "$outline" "$work/five_thousand.py" "$runs" <<'PY'
import statistics, subprocess, sys, time
binary, path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
times = []
for _ in range(runs + 3):
    start = time.perf_counter()
    subprocess.run([binary, "outline", "--no-cache", path], stdout=subprocess.DEVNULL, check=True)
    times.append((time.perf_counter() - start) * 1000)
times = times[3:]
print(f"5,000-line Python file, whole process ({runs} runs): best {min(times):.1f} ms, median {statistics.median(times):.1f} ms")
PY
fi

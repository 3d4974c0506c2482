#!/usr/bin/env bash
# Speed, memory and correctness of the live index (`ast-outline lsp`,
# `ast-outline watch`) under file writes. Not a test: figures depend on the
# machine (printed with them), so they are printed, never asserted.
#
#   bench/live.sh                     # build (release), then everything (~5 min)
#   EXE=/path/to/ast-outline bench/live.sh     # time that binary, no build
#   SAMPLES=100 REF_SAMPLES=50 BURST_FILES=2000 BURST_ROUNDS=5 bench/live.sh
#
# Two projects, each in a temporary directory (removed at the end):
#   generated  bench/live/gen.py: 5,000 files (4,000 Python in 80 packages of
#              50, 1,000 TypeScript in 20 directories of 50), ~50-150 lines
#              each, classes, functions, imports and calls across files;
#              seeded, the same bytes every run
#   stdlib     a copy (`cp -a`) of python3's standard library (sysconfig
#              stdlib) without site-packages, `__pycache__` removed
# For each, bench/live/driver.py starts `ast-outline lsp --root DIR` (index
# at DIR/.ast-outline/, built when the server starts) and measures:
#   build         spawn to the `initialize` answer (the server builds the
#                 index first); reference: `ast-outline index DIR --db NEW`
#   write->symbol SAMPLES times, on as many files: t0 just before the file is
#                 rewritten (open, write, close: its text plus a new function
#                 `probe_...`), then `workspace/symbol probe_...` back to back
#                 until an answer holds it (t1: that answer read); 0.3 s
#                 between samples (each its own event, past the debounce)
#   write->refs   REF_SAMPLES times: a file that imports a function of another
#                 file gets a new function calling it; `textDocument/
#                 references` on the definition until it lists that call
#   query alone   `workspace/symbol` of an indexed name, nothing pending (the
#                 reference for the two above), and an unsupported request
#                 (the JSON-RPC round trip)
#   memory        VmRSS / VmHWM of the server (/proc/PID/status) after the
#                 build, after the latency runs, at the end
#   export        after the server stops, `ast-outline export` of its index
#                 against the export of a fresh `ast-outline index` of the
#                 same tree (every row compared)
# On the generated project, the burst: BURST_FILES x BURST_ROUNDS writes
# (default 2,000 files x 5 = 10,000) paced evenly over one second, round
# after round (each write adds `burst_FFFF_wK`), while another thread sends
# `workspace/symbol` back to back and times each answer; then, once the
# server is idle, every file's last name is looked for (and none of its
# earlier ones) and the export comparison above. The burst again against
# `ast-outline watch --format json` (no queries): its update lines say
# whether the backpressure's full refresh ran (more than --threshold, 1,000,
# paths pending), and its index is compared the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
if [ -z "${EXE:-}" ]; then
  echo "building: cargo build --release -p ast-outline-cli (minutes the first time)" >&2
  cargo build --release -q -p ast-outline-cli
  EXE="$target/release/ast-outline"
fi
EXE="$(realpath "$EXE")"
SAMPLES="${SAMPLES:-100}"
REF_SAMPLES="${REF_SAMPLES:-50}"
BURST_FILES="${BURST_FILES:-2000}"
BURST_ROUNDS="${BURST_ROUNDS:-5}"
driver=(python3 "$(pwd)/bench/live/driver.py")
work="$(mktemp -d "${TMPDIR:-/tmp}/ast-outline-live.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "== conditions"
echo "machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, $(uname -sr)"
echo "work dir: $work on $(df -T "$work" | awk 'NR==2 {print $2}') ($(findmnt -no OPTIONS --target "$work" 2>/dev/null || echo '?'))"
echo "binary: $EXE ($("$EXE" --version 2>/dev/null || echo '?'), tree $(git describe --always --dirty 2>/dev/null || echo '?')), $(python3 --version)"
echo "load before: $(uptime)"
echo "other processes may share the 2 cores: see the load averages printed by each phase"

echo "== generated project"
python3 bench/live/gen.py "$work/generated" "$work/manifest.json"
"${driver[@]}" project --exe "$EXE" --root "$work/generated" --label generated \
  --work "$work" --out "$work/generated.json" --manifest "$work/manifest.json" \
  --samples "$SAMPLES" --ref-samples "$REF_SAMPLES" \
  --burst --burst-files "$BURST_FILES" --burst-rounds "$BURST_ROUNDS"

echo "== standard library"
stdlib="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"
mkdir "$work/stdlib"
for entry in "$stdlib"/* "$stdlib"/.[!.]*; do
  [ -e "$entry" ] || continue
  case "$(basename "$entry")" in site-packages|dist-packages) continue ;; esac
  cp -a "$entry" "$work/stdlib/"
done
find "$work/stdlib" -name __pycache__ -prune -exec rm -rf {} +
echo "copied $stdlib (without site-packages): $(find "$work/stdlib" -name '*.py' | wc -l) .py files"
"${driver[@]}" project --exe "$EXE" --root "$work/stdlib" --label stdlib \
  --work "$work" --out "$work/stdlib.json" \
  --samples "$SAMPLES" --ref-samples "$REF_SAMPLES"
rm -rf "$work/stdlib"

echo "== burst against watch"
"${driver[@]}" watch-burst --exe "$EXE" --root "$work/generated" \
  --manifest "$work/manifest.json" --work "$work" --out "$work/watch.json" \
  --burst-files "$BURST_FILES" --burst-rounds "$BURST_ROUNDS"

echo "load after: $(uptime)"
echo
echo "== summary ($(nproc) cores; times are wall clock; p50/p95 nearest rank)"
"${driver[@]}" summary "$work/generated.json" "$work/stdlib.json" "$work/watch.json"

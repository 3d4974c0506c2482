#!/usr/bin/env bash
# BM25 recall of `ast-outline chunks` symbol chunks vs fixed line windows.
# Usage: bash bench/chunks/run.sh [--max-tokens N] [--fixed-lines N] [--corpus NAME]...
# (MAX_TOKENS / FIXED_LINES in the environment work too.)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
WORK="$ROOT/bench/agent/work"
OUT="$HERE/out"

MAX_TOKENS="${MAX_TOKENS:-1000}"
FIXED_LINES="${FIXED_LINES:-200}"
CORPORA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --max-tokens) MAX_TOKENS="$2"; shift 2 ;;
    --max-tokens=*) MAX_TOKENS="${1#*=}"; shift ;;
    --fixed-lines) FIXED_LINES="$2"; shift 2 ;;
    --fixed-lines=*) FIXED_LINES="${1#*=}"; shift ;;
    --corpus) CORPORA+=("$2"); shift 2 ;;
    --corpus=*) CORPORA+=("${1#*=}"); shift ;;
    -h|--help) sed -n '2,4p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

# 1. Corpora.
bash "$ROOT/bench/agent/fetch.sh"

# 2. The workspace's ast-outline (release).
(cd "$ROOT" && cargo build --release -q -p ast-outline-cli)
AO="${CARGO_TARGET_DIR:-$ROOT/target}/release/ast-outline"
if ! "$AO" chunks --help >/dev/null 2>&1; then
  echo "run.sh: '$AO' has no 'chunks' subcommand yet: nothing to measure" >&2
  exit 1
fi

# 3. Symbol chunks, one JSONL per corpus, made in the corpus folder with '.' as PATH.
mkdir -p "$OUT"
if [ ${#CORPORA[@]} -eq 0 ]; then
  mapfile -t CORPORA < <(python3 -c 'import json,sys
seen=[]
for q in json.load(open(sys.argv[1])):
    if q["corpus"] not in seen: seen.append(q["corpus"]); print(q["corpus"])' "$HERE/questions.json")
fi
for c in "${CORPORA[@]}"; do
  echo "chunks: $c (--max-tokens $MAX_TOKENS)" >&2
  (cd "$WORK/$c" && "$AO" chunks --quiet --max-tokens "$MAX_TOKENS" .) > "$OUT/$c.jsonl"
done

# 4. The harness (its own crate and target dir, not part of the workspace).
export CARGO_TARGET_DIR="$HERE/target"
(cd "$HERE" && cargo build --release -q --locked)
CORPUS_ARGS=()
for c in "${CORPORA[@]}"; do CORPUS_ARGS+=(--corpus "$c"); done
"$HERE/target/release/chunks-bench" \
  --questions "$HERE/questions.json" \
  --work "$WORK" \
  --chunks "$OUT" \
  --fixed-lines "$FIXED_LINES" \
  "${CORPUS_ARGS[@]}" \
  --details "$OUT/details.jsonl" \
  --json "$OUT/summary.json" | tee "$OUT/summary.txt"
echo "details: $OUT/details.jsonl, summary: $OUT/summary.json" >&2

# 5. Definitions cut mid-way by each chunking.
python3 "$HERE/cuts.py" "$WORK" "$OUT" "$FIXED_LINES" "$AO" "${CORPORA[@]}" | tee -a "$OUT/summary.txt"

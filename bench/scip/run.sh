#!/usr/bin/env bash
# The SCIP benchmark end to end: precision and recall of ast-outline's
# cross-file references against scip-python and scip-typescript.
#
#   bench/scip/run.sh [--fresh] [PROJECT...]     (default: click httpie mobx zod)
#
# 1. npm ci (when node_modules/ is missing or older than package-lock.json);
# 2. fetch.sh (the pinned projects, into work/<name>/);
# 3. the scip_dump example, built when missing (ast-outline itself is never
#    rebuilt: $AST_OUTLINE or target/release/ast-outline, built only when missing);
# 4. each project's oracle index, cached as work/out/<name>.scip (--fresh
#    runs the oracles again);
# 5. ast-outline index (a new database each run) and export --format json;
# 6. scip_dump of each oracle index;
# 7. compare.py, printed and kept in work/out/report.txt and report.json.
# Each step's wall time is printed at the end.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
WORK="$HERE/work"
OUT="$WORK/out"
DB="$WORK/db"
BIN="$HERE/node_modules/.bin"
AST_OUTLINE="${AST_OUTLINE:-$REPO/target/release/ast-outline}"
SCIP_DUMP="$REPO/target/release/examples/scip_dump"

fresh=0
projects=()
for arg in "$@"; do
  case "$arg" in
    --fresh) fresh=1 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $arg" >&2; exit 2 ;;
    *) projects+=("$arg") ;;
  esac
done
[ ${#projects[@]} -gt 0 ] || projects=(click httpie mobx zod)

# project -> oracle (python | typescript), version (scip-python's --project-version)
language_of() {
  case "$1" in
    click|httpie) echo python ;;
    mobx|zod) echo typescript ;;
    *) echo "run.sh: unknown project $1 (click httpie mobx zod)" >&2; exit 2 ;;
  esac
}
version_of() {
  sed -n "s/^${1^^}_VER=\([^ ]*\).*/\1/p" "$HERE/fetch.sh"
}

timings=()
step() {  # step LABEL COMMAND...: run it, remember its wall time
  local label="$1"; shift
  local start ms
  start=$(date +%s%N)
  "$@"
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  timings+=("$(printf '%6d.%02d s  %s' $((ms / 1000)) $((ms % 1000 / 10)) "$label")")
}

mkdir -p "$OUT" "$DB"

# 1. the oracles' npm packages
if [ ! -x "$BIN/scip-python" ] || [ ! -x "$BIN/scip-typescript" ] \
   || [ "$HERE/package-lock.json" -nt "$HERE/node_modules/.package-lock.json" ]; then
  step "npm ci" npm ci --prefix "$HERE" --no-audit --no-fund
fi

# 2. the projects
step "fetch" "$HERE/fetch.sh"

# 3. the binaries
if [ ! -x "$AST_OUTLINE" ]; then
  step "cargo build ast-outline-cli" cargo build --release --manifest-path "$REPO/Cargo.toml" -p ast-outline-cli
fi
if [ ! -x "$SCIP_DUMP" ]; then
  step "cargo build scip_dump" cargo build --release --manifest-path "$REPO/Cargo.toml" -p index --example scip_dump
fi

# scip-python asks pip for the environment's packages unless given them: an
# empty list keeps it offline (only the project's own symbols matter here).
echo '[]' > "$OUT/empty-env.json"

oracle() {  # oracle NAME
  local name="$1" scip="$OUT/$1.scip"
  if [ "$fresh" = 0 ] && [ -s "$scip" ] && [ "$scip" -nt "$HERE/package-lock.json" ] \
     && [ "$scip" -nt "$WORK/$name" ]; then
    echo "oracle: $name cached ($scip)"
    return
  fi
  echo "oracle: $name"
  rm -f "$scip"
  if [ "$(language_of "$name")" = python ]; then
    (cd "$WORK/$name" && "$BIN/scip-python" index --quiet --project-name "$name" \
       --project-version "$(version_of "$name")" --environment "$OUT/empty-env.json" \
       --output "$scip.tmp") > "$OUT/$name.oracle.log" 2>&1
  else
    (cd "$WORK/$name" && "$BIN/scip-typescript" index --no-progress-bar \
       --output "$scip.tmp") > "$OUT/$name.oracle.log" 2>&1
  fi || { echo "run.sh: the oracle failed on $name; see $OUT/$name.oracle.log" >&2; exit 1; }
  mv "$scip.tmp" "$scip"
}

ours() {  # ours NAME: a new index, then the export
  local name="$1"
  rm -f "$DB/$name.sqlite" "$DB/$name.sqlite-wal" "$DB/$name.sqlite-shm"
  "$AST_OUTLINE" index "$WORK/$name" --db "$DB/$name.sqlite"
  "$AST_OUTLINE" export --format json --db "$DB/$name.sqlite" > "$OUT/$name.export.json"
}

for name in "${projects[@]}"; do
  language_of "$name" >/dev/null
  step "oracle $name ($(language_of "$name"))" oracle "$name"
  step "ast-outline index+export $name" ours "$name"
  step "scip_dump $name" sh -c "'$SCIP_DUMP' '$OUT/$name.scip' > '$OUT/$name.scip.jsonl'"
done

step "compare.py" sh -c "python3 '$HERE/compare.py' --work '$WORK' --json-out '$OUT/report.json' \
  ${projects[*]} > '$OUT/report.txt'"
cat "$OUT/report.txt"

echo
echo "== wall time of each step ($("$AST_OUTLINE" --version 2>/dev/null || echo "ast-outline ?"))"
printf '%s\n' "${timings[@]}"
echo "(reports: $OUT/report.txt, $OUT/report.json)"

#!/usr/bin/env bash
# Speed of the cross-file index against a plain outline of the same files, in
# one run (issue 8 goals: build <= 2x outline, refresh after one edit < 100 ms,
# queries < 50 ms). Not a test: figures depend on the machine.
#
#   bench/index.sh                       # the two default trees
#   bench/index.sh NAME=DIR[:EDIT] ...   # other trees (EDIT: a file under DIR,
#                                        # relative, that the edits touch)
#   BASELINE=/path/to/ast-outline bench/index.sh   # also time another build
#   AFTER=/path/to/ast-outline bench/index.sh      # time that binary, no build
#
# Each tree is first copied with hard links (`cp -al`) to a temporary
# directory; an edited file gets its own copy first, so the original is never
# written. For each tree and binary, each command under /usr/bin/time (wall,
# peak RSS), every step RUNS times (default 3), median:
#   outline    `ast-outline outline --no-cache DIR > /dev/null`
#   build      `ast-outline index DIR --db FRESH.sqlite -q` (no database yet)
#   nochange   the same again (nothing changed)
#   edit-body  after appending a comment line to EDIT (its content changes,
#              its names do not)
#   edit-def   after appending a new top-level function to EDIT
#   edit-body-named, edit-def-named   the same edits, refreshed with
#              `index --changed EDIT` (no walk: only the named file is read)
#   defs/refs/callers  `ast-outline defs|refs|callers ... --no-refresh`
#   floor      (lines `floor:`) cli/examples/index_floor.rs: in one process,
#              an outline of every file against the same with the facts
#              extracted, then also encoded as the index stores them; what
#              any build that extracts facts pays before SQLite and
#              resolution
# Whole processes are timed (start-up, walking the tree and the stat of every
# file included); `refresh ms` is the refresh as the index command reports it
# (its `milliseconds`, walk included). Ratios: build/outline, and each time
# against its goal. Default trees: the Python standard library (python3's
# sysconfig stdlib, site-packages included, as the walker finds it) with EDIT
# `json/decoder.py`, and this repository (without `.git`) with EDIT
# `xref/src/modules.rs`. Release build; CARGO_TARGET_DIR is honoured.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
target="${CARGO_TARGET_DIR:-target}"
if [ -z "${AFTER:-}" ]; then
  cargo build --release -q -p ast-outline-cli --bin ast-outline --example index_floor
  AFTER="$target/release/ast-outline"
fi
floor="$target/release/examples/index_floor"
bins=("after=$AFTER")
if [ -n "${BASELINE:-}" ]; then
  bins=("before=$BASELINE" "${bins[@]}")
fi
runs="${RUNS:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ $# -eq 0 ]; then
  stdlib="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"
  set -- "python-stdlib=$stdlib:json/decoder.py" "this-repo=$repo:xref/src/modules.rs"
fi

# timed OUT CMD...: runs CMD, stdout to OUT; prints "wall_ms rss_kb".
timed() {
  local out="$1"; shift
  local start end wall rss
  start=$(date +%s%N)
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$out" 2> "$work/stderr" || {
    echo "failed: $*" >&2; tail -3 "$work/stderr" >&2; return 1; }
  end=$(date +%s%N)
  read -r wall rss < "$work/time"
  echo "$(( (end - start) / 1000000 )) $rss"
}

# median of the numbers on stdin.
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# refresh_ms JSON: the `milliseconds` of an index run.
refresh_ms() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["milliseconds"])' "$1"; }

# break_link FILE: gives FILE its own inode (the copy shares the original's).
break_link() { cp -p "$1" "$1.bench-tmp" && mv "$1.bench-tmp" "$1"; }

printf '%-14s %-7s %-10s %9s %9s %10s %s\n' tree binary step wall_ms rss_mb "refresh_ms" ratio
for spec in "$@"; do
  name="${spec%%=*}"; rest="${spec#*=}"
  dir="${rest%%:*}"; edit="${rest#*:}"; [ "$edit" = "$rest" ] && edit=""
  copy="$work/$name"
  cp -al "$dir" "$copy"
  rm -rf "$copy/.git" "$copy/.ast-outline"
  for bin_spec in "${bins[@]}"; do
    label="${bin_spec%%=*}"; bin="${bin_spec#*=}"
    db="$work/$name-$label.sqlite"
    row() { printf '%-14s %-7s %-10s %9s %9s %10s %s\n' "$name" "$label" "$@"; }
    outline_ms=$(for _ in $(seq "$runs"); do timed /dev/null "$bin" outline --no-cache "$copy" | cut -d' ' -f1; done | median)
    row outline "$outline_ms" - - -
    # The floor of any build that extracts reference facts, before SQLite
    # and resolution (cli/examples/index_floor.rs), in its own process.
    if [ -x "$floor" ] && [ "$label" = after ]; then
      "$floor" "$copy" 2>&1 | sed 's/^/  floor: /'
    fi
    builds=""
    for _ in $(seq "$runs"); do
      rm -f "$db" "$db-wal" "$db-shm"
      if ! t=$(timed "$work/out.json" "$bin" index "$copy" --db "$db" -q --format json); then
        row build failed - - "the index command failed (see above)"; continue 2
      fi
      builds+="$t"$'\n'
    done
    build_ms=$(echo -n "$builds" | cut -d' ' -f1 | median)
    build_rss=$(echo -n "$builds" | cut -d' ' -f2 | median)
    row build "$build_ms" "$((build_rss / 1024))" "$(refresh_ms "$work/out.json")" \
      "build/outline $(echo "scale=2; $build_ms / $outline_ms" | bc) (goal <= 2)"
    echo "  $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["files"], "files,", d["references"], "references, phases", d["phases_ms"])' "$work/out.json"), db $(($(stat -c %s "$db") / 1048576)) MB"
    step() { # step [ARGS...]: one timed refresh, prints "wall refresh_ms"
      local t; t=$(timed "$work/out.json" "$bin" index "$copy" --db "$db" -q --format json "$@") || return 1
      echo "${t%% *} $(refresh_ms "$work/out.json")"
    }
    report() { # report NAME GOAL_MS RESULTS
      local wall ms; wall=$(echo -n "$3" | cut -d' ' -f1 | median)
      ms=$(echo -n "$3" | cut -d' ' -f2 | median)
      row "$1" "$wall" - "$ms" "refresh/goal $(echo "scale=2; $ms / $2" | bc) (goal < 1; wall/goal $(echo "scale=2; $wall / $2" | bc))"
    }
    last() { echo "  last: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("phases", d["phases_ms"], "files read", d.get("files_read"), "resolved files", d.get("resolved_files"))' "$work/out.json")"; }
    results=""; for _ in $(seq "$runs"); do results+="$(step)"$'\n'; done
    report nochange 100 "$results"
    if [ -n "$edit" ]; then
      break_link "$copy/$edit"
      # Each edit refreshed twice over: the whole tree walked, then (suffix
      # `-named`) only the edited file named (`index --changed FILE`, as a
      # watcher or an editor that knows what changed does).
      for mode in walk named; do
        suffix=""; extra=()
        if [ "$mode" = named ]; then suffix="-named"; extra=(--changed "$copy/$edit"); fi
        results=""
        for i in $(seq "$runs"); do
          printf '\n# bench edit %s %s %s\n' "$label" "$mode" "$i" >> "$copy/$edit"
          results+="$(step "${extra[@]}")"$'\n' || { row "edit-body$suffix" failed - - "(this binary has no --changed?)"; continue 2; }
        done
        report "edit-body$suffix" 100 "$results"
        last
        results=""
        for i in $(seq "$runs"); do
          case "$edit" in
            *.py) printf '\ndef _bench_added_%s_%s_%s():\n    return %s\n' "$label" "$mode" "$i" "$i" >> "$copy/$edit" ;;
            *.rs) printf '\npub fn bench_added_%s_%s_%s() -> u32 {\n    %s\n}\n' "$label" "$mode" "$i" "$i" >> "$copy/$edit" ;;
            *) printf '\nexport function benchAdded_%s_%s_%s() {\n  return %s;\n}\n' "$label" "$mode" "$i" "$i" >> "$copy/$edit" ;;
          esac
          results+="$(step "${extra[@]}")"$'\n'
        done
        report "edit-def$suffix" 100 "$results"
        last
      done
    fi
    # Queries: a name defined in the edited file (or `main`), its first
    # definition as the target.
    qname="$(sed -n 's/^\(def\|class\) \([A-Za-z_][A-Za-z0-9_]*\).*/\2/p; s/^pub fn \([a-z_][a-z0-9_]*\).*/\1/p' "$copy/${edit:-/dev/null}" 2>/dev/null | head -1)"
    qname="${qname:-main}"
    qtarget="$("$bin" defs "$qname" --root "$copy" --db "$db" --no-refresh --format json \
      | python3 -c 'import json,sys; d=json.load(sys.stdin); d=d["defs"]; print(d[0]["id"] if d else "")')"
    for q in defs refs callers; do
      case "$q" in defs) arg="$qname" ;; *) arg="$qtarget" ;; esac
      [ -z "$arg" ] && continue
      ms=$(for _ in $(seq "$runs"); do timed /dev/null "$bin" "$q" "$arg" --root "$copy" --db "$db" --no-refresh | cut -d' ' -f1; done | median)
      row "$q" "$ms" - - "query/goal $(echo "scale=2; $ms / 50" | bc) (goal < 1) [$arg]"
    done
    rm -f "$db" "$db-wal" "$db-shm"
  done
  rm -rf "$copy"
done

#!/usr/bin/env bash
# Long fuzzing: runs each cargo-fuzz target of fuzz/ for a given time and
# prints, per target, the executions, the corpus it ended with and what it
# found (each crash, timeout or out-of-memory input with the first line of
# its panic, reproduced after the run).
#
#   bench/fuzz.sh [--time SECONDS] [--jobs N] [TARGET...]
#
#   --time SECONDS  per target (default 3600: one hour)
#   --jobs N        targets run at once (default 1; each is one process)
#   TARGET          fuzz_python fuzz_typescript fuzz_rust fuzz_resolve (default: all)
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`); the stable toolchain
# is enough (RUSTC_BOOTSTRAP=1 unlocks libFuzzer's flags). Each run keeps
# going after a finding (libFuzzer's -fork=1 with -ignore_crashes and friends),
# so one bug does not end the hour. Logs: fuzz/logs/<target>.log; findings:
# fuzz/artifacts/<target>/ (both git-ignored). Exit status: 0 when nothing
# was found, 1 when something was, 2 on a usage or build error.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
fuzz=$root/fuzz
time=3600
jobs=1
targets=()
while [ $# -gt 0 ]; do
    case $1 in
        --time) time=${2:?--time needs SECONDS}; shift 2 ;;
        --jobs) jobs=${2:?--jobs needs N}; shift 2 ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        fuzz_python|fuzz_typescript|fuzz_rust|fuzz_resolve) targets+=("$1"); shift ;;
        *) echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case $time in ''|*[!0-9]*) echo "fuzz.sh: --time takes whole seconds, not '$time'" >&2; exit 2 ;; esac
case $jobs in ''|0|*[!0-9]*) echo "fuzz.sh: --jobs takes a positive whole number, not '$jobs'" >&2; exit 2 ;; esac
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_python fuzz_typescript fuzz_rust fuzz_resolve)
if ! cargo fuzz --version > /dev/null 2>&1; then
    echo "fuzz.sh: cargo-fuzz is not installed: cargo install cargo-fuzz --locked" >&2
    exit 2
fi

export RUSTC_BOOTSTRAP=1
cd "$fuzz"
sh "$fuzz/seed.sh" > /dev/null
# One build for all targets, release without sanitizer (see fuzz/README.md).
if ! cargo fuzz build -O -s none > "$fuzz/build.log" 2>&1; then
    tail -20 "$fuzz/build.log" >&2
    echo "fuzz.sh: the build failed (fuzz/build.log)" >&2
    exit 2
fi
bin_dir=$fuzz/target/x86_64-unknown-linux-gnu/release
mkdir -p "$fuzz/logs"

run() { # TARGET: one timed run, its findings listed in logs/TARGET.before
    local target=$1 artifacts=$fuzz/artifacts/$1
    mkdir -p "$artifacts" "$fuzz/corpus/$target"
    ls "$artifacts" > "$fuzz/logs/$target.before"
    # /usr/bin/time: the CPU seconds the run got (targets share the cores).
    /usr/bin/time -f '%U %S' -o "$fuzz/logs/$target.cpu" \
    cargo fuzz run -O -s none "$target" "corpus/$target" -- \
        -max_total_time="$time" -timeout=10 -rss_limit_mb=4096 -max_len=16384 \
        -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        > "$fuzz/logs/$target.log" 2>&1 || true
}

start=$(date +%s)
running=0
for target in "${targets[@]}"; do
    run "$target" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
wait
elapsed=$(( $(date +%s) - start ))

found_any=0
printf '%-16s %8s %8s %14s %8s %8s %s\n' target seconds cpu-s executions exec/s corpus found
for target in "${targets[@]}"; do
    log=$fuzz/logs/$target.log
    # Fork mode's status lines: "#EXECS: cov: C ft: F corp: N exec/s: R oom/timeout/crash: a/b/c time: Ts job: J ..."
    last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1 || true)
    execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<< "$last")
    secs=$(sed -E 's/.* time: ([0-9]+)s.*/\1/' <<< "$last")
    # The mean over the run (the status line's exec/s is the latest only).
    rate=$(( ${execs:-0} / ( ${secs:-0} > 0 ? ${secs:-1} : 1 ) ))
    cpu=$(awk 'END { printf "%d", $1 + $2 }' "$fuzz/logs/$target.cpu" 2>/dev/null || true)
    corpus=$(ls "$fuzz/corpus/$target" | wc -l)
    new=$(comm -13 "$fuzz/logs/$target.before" <(ls "$fuzz/artifacts/$target") || true)
    count=$(grep -c . <<< "$new" || true)
    printf '%-16s %8s %8s %14s %8s %8s %s\n' "$target" "${secs:-?}" "${cpu:-?}" "${execs:-?}" "${rate:-?}" "$corpus" "$count"
    [ -n "$last" ] || echo "  (no status line: see fuzz/logs/$target.log)"
    for artifact in $new; do
        found_any=1
        # Reproduce it alone to name what it is.
        why=$(timeout 60 "$bin_dir/$target" "$fuzz/artifacts/$target/$artifact" 2>&1 \
            | grep -m1 -E "panicked at|ERROR: libFuzzer|thread '.*' has overflowed" || true)
        echo "  $artifact: ${why:-(did not reproduce alone)}"
    done
done
echo "wall time ${elapsed}s for ${#targets[@]} targets, ${jobs} at a time"
exit "$found_any"

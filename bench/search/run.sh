#!/usr/bin/env bash
# Wall time of `ast-outline search PATTERN PATH` against ripgrep on the same
# files, in the same run. Usage, from the repository root:
#
#   bash bench/search/run.sh            # RUNS=5 timed runs per command
#   RUNS=9 STDLIB=/some/dir bash bench/search/run.sh
#
# Prints one table to stdout (medians in seconds); the tools' own output goes
# to /dev/null. See bench/search/README.md.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
HERE=bench/search
RG_VERSION=14.1.1
RG=$ROOT/$HERE/.tools/bin/rg
AO=$ROOT/target/release/ast-outline
RUNS=${RUNS:-5}
OUT=$ROOT/$HERE/out
mkdir -p "$OUT"

if [[ ! -x $RG ]]; then
    echo "installing ripgrep $RG_VERSION into $HERE/.tools" >&2
    cargo install --locked --root "$HERE/.tools" ripgrep --version "$RG_VERSION" >&2
fi
if [[ ! -x $AO ]]; then
    echo "building target/release/ast-outline" >&2
    cargo build --release -p ast-outline-cli --locked >&2
fi
STDLIB=${STDLIB:-$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')}

# The same files for both tools: ast-outline's walk honours .gitignore/.ignore
# even outside a git repository (ripgrep needs --no-require-git for that),
# skips hidden files (as rg does) and never descends into `__pycache__/`.
RG_WALK=(--no-require-git -g '!__pycache__/')

# corpus|name|kind|pattern   (kind: lit = literal, re = regex, icase = -i literal)
CASES=(
    "stdlib|common|lit|return"
    "stdlib|rare|lit|sys.setswitchinterval"
    "stdlib|regex|re|def \\w+_\\w+\\("
    "stdlib|icase|icase|deprecated"
    "repo|common|lit|let "
    "repo|rare|lit|excerpt("
    "repo|regex|re|fn \\w+_\\w+\\("
    "repo|icase|icase|todo"
)

corpus_path() {
    case $1 in
        stdlib) echo "$STDLIB" ;;
        repo) echo "." ;;
    esac
}

# Runs "$@" once untimed (page cache, outline cache), then RUNS times; prints
# the median wall time in seconds. Exit status 1 (no match) is fine.
median() {
    "$@" >/dev/null 2>&1 || [[ $? -eq 1 ]]
    local times=() start i
    for ((i = 0; i < RUNS; i++)); do
        start=$EPOCHREALTIME
        "$@" >/dev/null 2>&1 || [[ $? -eq 1 ]]
        times+=("$start $EPOCHREALTIME")
    done
    printf '%s\n' "${times[@]}" | awk '{print $2 - $1}' | sort -g |
        awk '{t[NR] = $1} END {printf "%.3f", (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2}'
}

# "142,982 hits in ..." -> 142982; "no hits ..." -> 0.
summary_number() { # TEXT WORD: the number before WORD (" hit", " file")
    grep -oE "[0-9,]+$2" <<<"$1" | head -1 | tr -d ', a-z' || true
}

echo "ripgrep: $("$RG" --version | head -1); ast-outline: $("$AO" --version 2>/dev/null || echo '?')"
echo "stdlib corpus: $STDLIB"
echo "runs per command: 1 untimed + $RUNS timed, median; $(nproc) CPUs"
echo

# Same files? rg --files (all files, binary included) against ast-outline's
# "(searched N files)" plus "(N files not searched: binary ...)".
for corpus in stdlib repo; do
    path=$(corpus_path "$corpus")
    rg_files=$("$RG" --files "${RG_WALK[@]}" "$path" | wc -l)
    summary=$("$AO" search --max-tokens 200 -- "zz""_absent_""zz" "$path" 2>/dev/null || true)
    searched=$(grep -oE 'searched [0-9,]+' <<<"$summary" | tr -dc 0-9)
    binary=$(grep -oE '^\([0-9,]+ files? not searched: binary' <<<"$summary" | tr -dc 0-9 || true)
    echo "files $corpus: rg --files $rg_files; ast-outline searched ${searched:-?} + binary ${binary:-0} = $((${searched:-0} + ${binary:-0}))"
done
echo

printf '%-7s %-8s %-6s %-28s %9s %9s %7s %9s %9s\n' \
    corpus pattern format args "rg s" "ao s" "ao/rg" "rg hits" "ao hits"
for case in "${CASES[@]}"; do
    IFS='|' read -r corpus name kind pattern <<<"$case"
    path=$(corpus_path "$corpus")
    case $kind in
        lit) rg_flags=(-F) ao_flags=() ;;
        re) rg_flags=() ao_flags=(-e) ;;
        icase) rg_flags=(-F -i) ao_flags=(-i) ;;
    esac
    rg_cmd=("$RG" -n "${RG_WALK[@]}" "${rg_flags[@]}" -- "$pattern" "$path")
    rg_hits=$("$RG" --count "${RG_WALK[@]}" "${rg_flags[@]}" -- "$pattern" "$path" |
        awk -F: '{s += $NF} END {print s + 0}')
    rg_time=$(median "${rg_cmd[@]}")
    for format in text json; do
        ao_cmd=("$AO" search "${ao_flags[@]}" --format "$format" -- "$pattern" "$path")
        ao_time=$(median "${ao_cmd[@]}")
        if [[ $format == text ]]; then
            first=$("${ao_cmd[@]}" 2>/dev/null | head -1 || true)
            ao_hits=$(summary_number "$first" ' hit')
            ao_hits=${ao_hits:-0}
        else
            # One JSON line per hit kept (at most 2,000 per file).
            ao_hits=$("${ao_cmd[@]}" 2>/dev/null | wc -l)
        fi
        args="${ao_flags[*]} '$pattern'"
        printf '%-7s %-8s %-6s %-28s %9s %9s %7s %9s %9s\n' \
            "$corpus" "$name" "$format" "${args# }" "$rg_time" "$ao_time" \
            "$(awk -v a="$ao_time" -v r="$rg_time" 'BEGIN {printf "%.1fx", (r > 0) ? a / r : 0}')" \
            "$rg_hits" "$ao_hits"
    done
done

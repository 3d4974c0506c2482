#!/bin/sh
# Seeds the fuzz corpora (fuzz/corpus/<target>/, git-ignored) from the golden
# fixtures and the shared cases. Run from anywhere: sh fuzz/seed.sh [CASES_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cases=${1:-$root/../shared/cases}
corpus=$here/corpus
mkdir -p "$corpus/fuzz_python" "$corpus/fuzz_typescript" "$corpus/fuzz_rust" "$corpus/fuzz_resolve"
copy() { # copy SRC_GLOB... into DIR
    dir=$1; shift
    for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/" || true; done
}
copy "$corpus/fuzz_python" "$root"/tests/fixtures/python/*.py "$root"/tests/fixtures/python/*.pyi "$cases"/*.py
copy "$corpus/fuzz_rust" "$root"/tests/fixtures/rust/*.rs "$cases"/*.rs
# fuzz_typescript: the first byte picks the syntax (0 ts, 1 tsx, 2 js, 3 jsx).
for f in "$root"/tests/fixtures/ts/* "$cases"/*.ts "$cases"/*.tsx "$cases"/*.js "$cases"/*.jsx; do
    [ -f "$f" ] || continue
    case $f in
        *.expect.md) continue ;;
        *.tsx) b='\001' ;;
        *.jsx) b='\003' ;;
        *.js|*.mjs|*.cjs) b='\002' ;;
        *) b='\000' ;;
    esac
    { printf "$b"; cat "$f"; } > "$corpus/fuzz_typescript/$(basename "$f")"
done
# fuzz_resolve: targets against the fixed sources in fuzz_targets/fuzz_resolve.rs.
i=0
for t in a.py:Repo a.py:Repo.find a.py:3:Repo a.py:12:Repo.find a.py:find a.py:name a.py:5 \
         a.py:3-9 a.py:0 a.py:9-2 a.py:99999999999 a.py:Repo.finf a.py:15:Repo.find.inner \
         'dir:x/b.ts:Queue.push' 'dir:x/b.ts:A.B.f' 'dir:x/b.ts:1:Queue' 'dir:x/b.ts:size' \
         'lib.rs:impl S.new' 'lib.rs:new' 'lib.rs:4:impl S.new' 'lib.rs:impl Iterator for S.next' \
         'lib.rs:m.new' 'lib.rs:1-3'; do
    i=$((i + 1))
    printf '%s' "$t" > "$corpus/fuzz_resolve/seed-$i"
done
echo "seeded: $(ls "$corpus"/fuzz_python | wc -l) python, $(ls "$corpus"/fuzz_typescript | wc -l) typescript, $(ls "$corpus"/fuzz_rust | wc -l) rust, $(ls "$corpus"/fuzz_resolve | wc -l) resolve"

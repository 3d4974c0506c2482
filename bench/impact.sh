#!/usr/bin/env bash
# Time and size of `ast-outline impact` on generated git repositories whose
# working tree changes every file (issue 26: a diff of thousands of files
# in bounded time, the budget respected, what was left out said), against
# `git diff` of the same tree in the same run as the reference. Not a test:
# figures depend on the machine.
#
#   bench/impact.sh                 # 3000 and 12000 changed files
#   bench/impact.sh 500 20000       # other sizes
#   AO=/path/to/ast-outline bench/impact.sh   # that binary, no build
#
# Each repository: N Python files of two functions (g calls f), one pytest
# file reaching every tenth g, committed; then f's body changed in every
# file. Printed per size: index build, `git diff` wall time, `impact` wall
# time and peak RSS, the ratio impact/git-diff, the answer's size in
# o200k_base tokens as it states it, and its "left out" lines.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${AO:-}" ]]; then
    cargo build --release -q -p ast-outline-cli
    AO="$PWD/target/release/ast-outline"
fi
sizes=("$@")
[[ ${#sizes[@]} -eq 0 ]] && sizes=(3000 12000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wall() { /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; }
for n in "${sizes[@]}"; do
    repo="$work/r$n"
    mkdir -p "$repo"
    python3 - "$repo" "$n" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, f"pkg{i // 100}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"m{i}.py"), "w") as f:
        f.write(f"def f{i}(x):\n    return x + {i}\n\n\ndef g{i}(x):\n    return f{i}(x) * 2\n")
os.makedirs(os.path.join(root, "tests"), exist_ok=True)
with open(os.path.join(root, "tests", "test_all.py"), "w") as f:
    for i in range(0, n, 10):
        f.write(f"from pkg{i // 100}.m{i} import g{i}\n")
    for i in range(0, n, 10):
        f.write(f"\n\ndef test_{i}():\n    assert g{i}(1)\n")
PY
    git -C "$repo" init -q -b main
    git -C "$repo" add -A
    git -C "$repo" -c user.email=b@example.com -c user.name=b commit -qm init
    python3 - "$repo" "$n" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    p = os.path.join(root, f"pkg{i // 100}", f"m{i}.py")
    text = open(p).read().replace(f"return x + {i}", f"return x - {i}")
    open(p, "w").write(text)
PY
    build=$(cd "$repo" && wall "$AO" index . -q)
    gitdiff=$(cd "$repo" && wall git diff -U0 --find-renames)
    run=$(cd "$repo" && wall "$AO" impact)
    out=$(cd "$repo" && "$AO" impact)
    read -r gd_s _ <<<"$gitdiff"
    read -r im_s im_kb <<<"$run"
    echo "== $n changed files"
    echo "index build: ${build% *} s"
    echo "git diff: ${gd_s} s; impact: ${im_s} s, ${im_kb} KB peak; impact/git-diff = $(python3 -c "print(round($im_s / max($gd_s, 0.01), 1))")"
    echo "$out" | head -1
    echo "$out" | grep -E '^\((.*left out|.*listed without)' || true
    echo "answer: $(echo "$out" | wc -c) bytes"
done

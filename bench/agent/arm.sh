#!/usr/bin/env bash
# arm.sh ARM NAME DIR [BINARY]: set up one arm of the agent benchmark in DIR:
# DIR/code (a fresh copy of bench/agent/work/NAME), DIR/bin (t, and for arm A
# ao and the ast-outline binary), DIR/log.jsonl (the t log, empty), and
# DIR/PROMPT.md (the arm's rules with NAME's questions: all the agent is told).
# Run bench/agent/fetch.sh first; BINARY defaults to target/release/ast-outline.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ARM="$1" NAME="$2" DIR="$3"
BINARY="${4:-$HERE/../../target/release/ast-outline}"
[ -d "$HERE/work/$NAME" ] || { echo "arm.sh: run fetch.sh first (no work/$NAME)" >&2; exit 2; }
rm -rf "$DIR"
mkdir -p "$DIR/bin"
cp -r "$HERE/work/$NAME" "$DIR/code"
cp "$HERE/../../../shared/agent-bench/t" "$DIR/bin/t" 2>/dev/null || cp "$HERE/t" "$DIR/bin/t"
chmod +x "$DIR/bin/t"
: > "$DIR/log.jsonl"
if [ "$ARM" = A ]; then
  cp "$HERE/ao" "$DIR/bin/ao"
  cp "$BINARY" "$DIR/bin/ast-outline"
  chmod +x "$DIR/bin/ao" "$DIR/bin/ast-outline"
fi
sed -e "s|@DIR@|$DIR|g" "$HERE/prompt-$ARM.md" > "$DIR/PROMPT.md"
cat "$HERE/$NAME/questions.md" >> "$DIR/PROMPT.md"
echo "$DIR/PROMPT.md"

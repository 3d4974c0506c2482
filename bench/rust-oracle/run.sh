#!/usr/bin/env bash
# ast-outline's Rust references against rust-analyzer's SCIP index, on tokio.
#
#   bench/rust-oracle/run.sh [--fresh]
#
# 1. rust-analyzer 0.0.345 (the ra_ap_rust-analyzer crate, whose binary has
#    the `scip` command), installed with `cargo install --locked` into
#    work/ra/ (once: about 50 min with one job on the shared 2 cores; 0.0.349, the version of the
#    workspace's ra_ap_syntax, does not build on Rust 1.95: its ra_ap_tt
#    uses the unstable `assert_matches`);
# 2. tokio $TOKIO_VER from crates.io (`cargo fetch` of a scratch package),
#    copied to work/tokio/;
# 3. rust-analyzer scip on it, with every feature and `tokio_unstable`
#    (work/ra-config.json), cached as work/out/tokio.scip (--fresh: again);
# 4. ast-outline index (a new database) and export --format json;
# 5. scip_dump of the oracle's index, then bench/scip/compare.py.
# Nothing here is built by the workspace or CI (no Cargo.toml of its own:
# rust-analyzer is installed from the registry as published).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
WORK="$HERE/work"
OUT="$WORK/out"
RA_VER=0.0.345
TOKIO_VER=1.54.1
RA="$WORK/ra/bin/rust-analyzer"
AST_OUTLINE="${AST_OUTLINE:-$REPO/target/release/ast-outline}"
SCIP_DUMP="$REPO/target/release/examples/scip_dump"
fresh=0
[ "${1:-}" = "--fresh" ] && fresh=1
mkdir -p "$OUT"

if [ ! -x "$RA" ]; then
  echo "installing rust-analyzer $RA_VER (ra_ap_rust-analyzer) into $WORK/ra"
  CARGO_TARGET_DIR="$WORK/ra-target" cargo install ra_ap_rust-analyzer \
    --version "=$RA_VER" --locked --root "$WORK/ra"
fi

if [ ! -f "$WORK/tokio/Cargo.toml" ]; then
  echo "fetching tokio $TOKIO_VER"
  scratch="$WORK/fetch"
  mkdir -p "$scratch/src"
  printf '[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\ntokio = "=%s"\n\n[workspace]\n' "$TOKIO_VER" > "$scratch/Cargo.toml"
  : > "$scratch/src/lib.rs"
  cargo fetch --manifest-path "$scratch/Cargo.toml"
  src="$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/tokio-"$TOKIO_VER" | head -n 1)"
  rm -rf "$WORK/tokio"
  cp -r "$src" "$WORK/tokio"
fi
# Inside this repository, cargo would take tokio for a member of our
# workspace: an empty [workspace] table makes it its own.
grep -q '^\[workspace\]' "$WORK/tokio/Cargo.toml" || printf '\n[workspace]\n' >> "$WORK/tokio/Cargo.toml"

if [ ! -x "$SCIP_DUMP" ]; then
  cargo build --release --manifest-path "$REPO/Cargo.toml" -p index --example scip_dump
fi
if [ ! -x "$AST_OUTLINE" ]; then
  cargo build --release --manifest-path "$REPO/Cargo.toml" -p ast-outline-cli
fi

if [ "$fresh" = 1 ] || [ ! -s "$OUT/tokio.scip" ]; then
  printf '{"cargo": {"features": "all", "cfgs": ["debug_assertions", "tokio_unstable"]}}\n' > "$WORK/ra-config.json"
  echo "oracle: rust-analyzer scip (about 2 min)"
  start=$(date +%s)
  (cd "$WORK/tokio" && "$RA" scip . --output "$OUT/tokio.scip.tmp" \
     --config-path "$WORK/ra-config.json") > "$OUT/tokio.oracle.log" 2>&1 \
    || { echo "run.sh: rust-analyzer failed; see $OUT/tokio.oracle.log" >&2; exit 1; }
  mv "$OUT/tokio.scip.tmp" "$OUT/tokio.scip"
  echo "oracle: $(( $(date +%s) - start )) s"
fi

rm -f "$WORK/tokio.sqlite"*
start=$(date +%s%N)
"$AST_OUTLINE" index "$WORK/tokio" --db "$WORK/tokio.sqlite"
echo "index: $(( ($(date +%s%N) - start) / 1000000 )) ms"
"$AST_OUTLINE" export --format json --db "$WORK/tokio.sqlite" > "$OUT/tokio.export.json"
"$SCIP_DUMP" "$OUT/tokio.scip" > "$OUT/tokio.scip.jsonl"
python3 "$REPO/bench/scip/compare.py" --work "$WORK" --json-out "$OUT/report.json" tokio \
  | tee "$OUT/report.txt"

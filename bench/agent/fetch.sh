#!/usr/bin/env bash
# Fetch the three pinned code bases of the agent benchmark into bench/agent/work/<name>/.
# Registries only: PyPI (pip), the npm registry (npm pack), crates.io (static.crates.io).
# Idempotent: a code base whose work dir already holds its marker file is skipped.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$HERE/work"
mkdir -p "$WORK"

ISORT_VER=5.13.2      # PyPI sdist
RTK_VER=2.5.0         # npm tarball of @reduxjs/toolkit (TypeScript sources under src/)
MINIJINJA_VER=2.5.0   # crates.io crate

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# --- Python: isort (sdist) ---------------------------------------------------
if [ ! -f "$WORK/isort/isort/core.py" ]; then
  echo "fetch: isort $ISORT_VER"
  pip download --quiet --no-deps --no-binary :all: "isort==$ISORT_VER" -d "$tmp/py"
  tar -xzf "$tmp/py/isort-$ISORT_VER.tar.gz" -C "$tmp/py"
  rm -rf "$WORK/isort"
  mv "$tmp/py/isort-$ISORT_VER" "$WORK/isort"
else
  echo "fetch: isort already present"
fi

# --- TypeScript: @reduxjs/toolkit (npm) -------------------------------------
if [ ! -f "$WORK/redux-toolkit/src/index.ts" ]; then
  echo "fetch: @reduxjs/toolkit $RTK_VER"
  mkdir -p "$tmp/npm"
  (cd "$tmp/npm" && npm pack --silent "@reduxjs/toolkit@$RTK_VER" >/dev/null)
  tar -xzf "$tmp/npm/reduxjs-toolkit-$RTK_VER.tgz" -C "$tmp/npm"
  # dist/ holds the bundled build output (.js/.mjs/.cjs bundles, .d.ts, source
  # maps) compiled from src/; it duplicates the TypeScript sources, so it is
  # removed. Everything else of the tarball (src/, query/, react/, package.json,
  # README.md, LICENSE) is kept as shipped.
  rm -rf "$tmp/npm/package/dist"
  rm -rf "$WORK/redux-toolkit"
  mv "$tmp/npm/package" "$WORK/redux-toolkit"
else
  echo "fetch: @reduxjs/toolkit already present"
fi

# --- Rust: minijinja (crates.io) ---------------------------------------------
if [ ! -f "$WORK/minijinja/src/lib.rs" ]; then
  echo "fetch: minijinja $MINIJINJA_VER"
  mkdir -p "$tmp/crate"
  curl -fsSL "https://static.crates.io/crates/minijinja/minijinja-$MINIJINJA_VER.crate" \
    | tar -xz -C "$tmp/crate"
  rm -rf "$WORK/minijinja"
  mv "$tmp/crate/minijinja-$MINIJINJA_VER" "$WORK/minijinja"
else
  echo "fetch: minijinja already present"
fi

echo "fetch: done -> $WORK"

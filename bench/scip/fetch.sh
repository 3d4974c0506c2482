#!/usr/bin/env bash
# Fetch the pinned projects of the SCIP benchmark into bench/scip/work/<name>/.
# Registries only: PyPI (pip download of the sdist) and the npm registry (npm pack).
# Idempotent: a project whose work dir already holds its marker file is skipped.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$HERE/work"
mkdir -p "$WORK"

CLICK_VER=8.1.7     # PyPI sdist: the library (src/click, tests/, examples/)
HTTPIE_VER=3.2.4    # PyPI sdist: the application, a CLI HTTP client (httpie/, tests/)
MOBX_VER=6.13.5     # npm tarball: the library, ships its TypeScript sources under src/
ZOD_VER=4.1.12      # npm tarball: ships src/ with its test suites (v3/tests, v4/classic/tests, ...)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# PyPI sdist NAME VERSION DIR MARKER
fetch_pypi() {
  local name="$1" ver="$2" dir="$3" marker="$4"
  if [ -f "$WORK/$dir/$marker" ]; then
    echo "fetch: $name already present"
    return
  fi
  echo "fetch: $name $ver (PyPI sdist)"
  mkdir -p "$tmp/py"
  pip download --quiet --no-deps --no-binary :all: "$name==$ver" -d "$tmp/py"
  tar -xzf "$tmp/py/$name-$ver.tar.gz" -C "$tmp/py"
  rm -rf "${WORK:?}/$dir"
  mv "$tmp/py/$name-$ver" "$WORK/$dir"
}

# npm tarball NAME VERSION DIR MARKER; the caller writes a tsconfig.json
fetch_npm() {
  local name="$1" ver="$2" dir="$3" marker="$4"
  if [ -f "$WORK/$dir/$marker" ]; then
    echo "fetch: $name already present"
    return 1
  fi
  echo "fetch: $name $ver (npm)"
  mkdir -p "$tmp/npm/$dir"
  local tgz
  tgz="$(cd "$tmp/npm/$dir" && npm pack --silent "$name@$ver")"
  tar -xzf "$tmp/npm/$dir/$tgz" -C "$tmp/npm/$dir"
  rm -rf "${WORK:?}/$dir"
  mv "$tmp/npm/$dir/package" "$WORK/$dir"
  return 0
}

# --- Python ------------------------------------------------------------------
fetch_pypi click "$CLICK_VER" click src/click/core.py
fetch_pypi httpie "$HTTPIE_VER" httpie httpie/core.py
# click keeps its package under src/ (`import click` in tests/ and examples/):
# pyright (scip-python) finds it there only when told; ast-outline finds the
# src/ layout by itself. Without this file every `click.x` in the tests is an
# unresolved local symbol to the oracle.
if [ ! -f "$WORK/click/pyrightconfig.json" ]; then
  printf '{\n  "extraPaths": ["src"]\n}\n' > "$WORK/click/pyrightconfig.json"
fi

# --- TypeScript ----------------------------------------------------------------
# Both tarballs ship their TypeScript sources under src/ next to the built
# JavaScript; the build output (dist/, or zod's .js/.cjs/.d.ts beside src/)
# duplicates the sources, so only src/ and package.json are kept. Neither ships
# a tsconfig.json: a minimal one including src/ is written (the marker file, so
# a half-done fetch is done again). Their dependencies' types (vitest, ...) are
# not installed: references inside the project resolve without them. zod's tests
# import the package by its own name ("zod/v4", "zod/v3", "zod/mini"): its
# tsconfig maps those names onto src/ with `paths` (zod's own build does it with
# a custom export condition), which both TypeScript and ast-outline follow.
if fetch_npm mobx "$MOBX_VER" mobx tsconfig.json; then
  find "$WORK/mobx" -mindepth 1 -maxdepth 1 ! -name src ! -name package.json -exec rm -rf {} +
  cat > "$WORK/mobx/tsconfig.json" <<'EOF'
{
  "compilerOptions": {
    "target": "es2020",
    "module": "esnext",
    "moduleResolution": "node",
    "strict": true,
    "experimentalDecorators": true,
    "noEmit": true,
    "skipLibCheck": true,
    "lib": ["es2020", "dom"]
  },
  "include": ["src"]
}
EOF
fi

if fetch_npm zod "$ZOD_VER" zod tsconfig.json; then
  find "$WORK/zod" -mindepth 1 -maxdepth 1 ! -name src ! -name package.json -exec rm -rf {} +
  cat > "$WORK/zod/tsconfig.json" <<'EOF'
{
  "compilerOptions": {
    "target": "es2020",
    "module": "esnext",
    "moduleResolution": "bundler",
    "strict": true,
    "noEmit": true,
    "skipLibCheck": true,
    "lib": ["es2022", "dom"],
    "baseUrl": ".",
    "paths": {
      "zod": ["./src/index.ts"],
      "zod/*": ["./src/*/index.ts"]
    }
  },
  "include": ["src"]
}
EOF
fi

echo "fetch: done -> $WORK"

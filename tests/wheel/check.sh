#!/usr/bin/env bash
# Builds the Python wheel that carries the `ast-outline` binary (pyproject.toml:
# maturin, bindings = "bin"), installs it into a fresh virtual environment and
# checks the installed program: `ast-outline --version`, the official MCP SDK's
# client test (tests/mcp-client/client_test.py) against it, the MCP client
# snippets of docs/clients.md with it on the PATH, and `uvx --from WHEEL
# ast-outline mcp` driven by the same SDK test. Nothing is published.
#
# Needs python3 with venv and pip, and PyPI (maturin and uv, pinned in
# requirements.txt; the SDK from tests/mcp-client/setup.sh). The wheel is built
# with Cargo's dev profile (PROFILE=release for a release wheel), so after
# `cargo test` it only links the binary again.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
profile="${PROFILE:-dev}"

python3 -m venv "$work/tools"
"$work/tools/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"

# Build through PEP 517 (what `pip install .` does), with the pinned maturin.
started=$SECONDS
PATH="$work/tools/bin:$PATH" MATURIN_PEP517_ARGS="--profile $profile" \
    "$work/tools/bin/pip" wheel --quiet --disable-pip-version-check --no-build-isolation \
    --no-deps -w "$work/dist" "$repo"
wheel="$(ls "$work"/dist/ast_outline-*.whl)"
echo "built $(basename "$wheel") in $((SECONDS - started)) s ($(du -h "$wheel" | cut -f1))"

python3 -m venv "$work/user"
"$work/user/bin/pip" install --quiet --disable-pip-version-check "$wheel"
installed="$work/user/bin/ast-outline"
test -x "$installed" || { echo "FAIL: the wheel put no ast-outline in the venv's bin" >&2; exit 1; }
version="$("$installed" --version)"
echo "installed: $version"
expected="ast-outline $(sed -n 's/^version = "\(.*\)"/\1/p' "$repo/Cargo.toml" | head -1) (commit "
case "$version" in
    "$expected"*) ;;
    *) echo "FAIL: --version says '$version', expected '$expected…'" >&2; exit 1 ;;
esac

bash "$repo/tests/mcp-client/setup.sh"
sdk="$repo/tests/mcp-client/.venv/bin/python"
"$sdk" "$repo/tests/mcp-client/client_test.py" "$installed" | tail -1
"$sdk" "$repo/tests/mcp-client/snippets_test.py" "$repo/docs/clients.md" "$work/user/bin"

# uvx runs the wheel without installing it.
cat > "$work/uvx-ast-outline" <<SCRIPT
#!/usr/bin/env bash
exec env UV_CACHE_DIR="$work/uv-cache" UV_NO_CONFIG=1 "$work/tools/bin/uvx" --quiet --from "$wheel" ast-outline "\$@"
SCRIPT
chmod +x "$work/uvx-ast-outline"
echo "uvx: $("$work/uvx-ast-outline" --version)"
"$sdk" "$repo/tests/mcp-client/client_test.py" "$work/uvx-ast-outline" | tail -1
echo "OK: the wheel installs a working ast-outline (pip and uvx)"

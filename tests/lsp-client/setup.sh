#!/usr/bin/env bash
# Installs Neovim (its built-in LSP client drives `ast-outline lsp` in
# cli/tests/lsp_neovim.rs) from the OS packages: Debian's `neovim` (0.7.2 on
# bookworm). A no-op when `nvim` is already on PATH. Needs apt-get, and root
# or sudo (without a password when not run from a terminal).
set -euo pipefail
if command -v nvim >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "tests/lsp-client/setup.sh: nvim is not on PATH and there is no apt-get; install Neovim (0.7 or later) by hand" >&2
    exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
    # From a test (no terminal) sudo must not wait for a password.
    if [ -t 0 ]; then sudo=(sudo); else sudo=(sudo -n); fi
fi
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends neovim
command -v nvim >/dev/null 2>&1 || {
    echo "tests/lsp-client/setup.sh: neovim was installed but nvim is not on PATH" >&2
    exit 1
}

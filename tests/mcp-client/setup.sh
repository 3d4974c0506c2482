#!/usr/bin/env bash
# Creates tests/mcp-client/.venv with the pinned MCP Python SDK
# (requirements.txt). Needs python3 (3.10 or later) with the venv module and
# access to PyPI. Run again to repair a broken environment; it is a no-op
# when the environment already has the pinned packages.
set -euo pipefail
cd "$(dirname "$0")"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt

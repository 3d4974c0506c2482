#!/usr/bin/env bash
# Measure `ast-outline tests` against a dynamic oracle: coverage.py per-test contexts
# of isort 5.13.2's own pytest suite.  See README.md beside this file.
#
#   AO=/path/to/ast-outline bash bench/tests-oracle/run.sh
#
# AO      the binary (default ../../target/release/ast-outline, relative to this dir)
# WORK    scratch directory (default /tmp/oracle); the sdist, venv and coverage data go there
# FRESH=1 remove WORK/isort (and its index) and the coverage data first (default 1)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
AO="${AO:-$HERE/../../target/release/ast-outline}"
[ -x "$AO" ] || { echo "no ast-outline binary at $AO (build it, or set AO=...)" >&2; exit 2; }
AO="$(cd "$(dirname "$AO")" && pwd)/$(basename "$AO")"
WORK="${WORK:-/tmp/oracle}"
FRESH="${FRESH:-1}"
VERSION=5.13.2
mkdir -p "$WORK"
cd "$WORK"

# 1. the sdist
if [ ! -f "dl/isort-$VERSION.tar.gz" ]; then
  python3 -m pip download --no-deps --no-binary :all: "isort==$VERSION" -d dl
fi
if [ "$FRESH" = 1 ]; then rm -rf isort "isort-$VERSION" coverage.db outcomes.jsonl; fi
if [ ! -d isort ]; then tar xzf "dl/isort-$VERSION.tar.gz" && mv "isort-$VERSION" isort; fi

# 2. the venv: test deps from the sdist's pyproject dev-dependencies that the tests import
if [ ! -x venv/bin/python ]; then python3 -m venv venv; fi
venv/bin/pip install -q --upgrade pip
venv/bin/pip install -q pytest pytest-cov coverage pytest-mock pytest-benchmark hypothesis hypothesmith \
  black colorama pylama toml example-isort-sorting-plugin example-shared-isort-profile setuptools
venv/bin/pip install -q -e ./isort          # editable: the tests import WORK/isort/isort
venv/bin/pip list 2>/dev/null | grep -iE '^(isort|pytest|pytest-cov|coverage|hypothesis|hypothesmith|black) ' || true

# 3. the oracle: run the suite under coverage with one context per test phase
cat > covrc <<'EOF'
[run]
source = isort
branch = false
EOF
# a tiny plugin records which tests ran (the universe static results are scored in)
cat > oracle_outcomes.py <<'EOF'
import json, os
def pytest_runtest_logreport(report):
    with open(os.environ["ORACLE_OUTCOMES"], "a") as fh:
        fh.write(json.dumps({"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome}) + "\n")
EOF
rm -f outcomes.jsonl coverage.db
cd isort
rm -rf .hypothesis
# Not run: tests/integration/test_projects_using_isort.py (git clones from the network);
# tests/integration/test_literal.py and test_ticketed_features.py hold no tests (all commented out).
# -p no:pylama: pylama 8's pytest plugin uses a hook argument pytest 8+ rejects.
t0=$(date +%s)
COVERAGE_FILE="$WORK/coverage.db" ORACLE_OUTCOMES="$WORK/outcomes.jsonl" PYTHONPATH="$WORK" \
  "$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider -p no:pylama -p oracle_outcomes -o addopts="" \
  --hypothesis-seed=0 --benchmark-disable \
  --cov --cov-config="$WORK/covrc" --cov-context=test --cov-report= \
  tests/unit tests/benchmark tests/integration/test_hypothesmith.py tests/integration/test_setting_combinations.py \
  > "$WORK/pytest.log" 2>&1 || true   # a few tests fail on current black/pip; their coverage still counts
echo "pytest under coverage: $(( $(date +%s) - t0 ))s; $(tail -1 "$WORK/pytest.log")"
grep -aE "^FAILED" "$WORK/pytest.log" || true

# 4. the tool against the oracle (fresh index)
rm -rf .ast-outline
"$WORK/venv/bin/python" "$HERE/oracle.py" --ao "$AO" --cov "$WORK/coverage.db" --outcomes "$WORK/outcomes.jsonl" \
  --package isort --depths 2,4,8,100 --sample 200 --seed 0 --out "$WORK/oracle-results.json" \
  | tee "$WORK/report.txt"

#!/usr/bin/env bash
# Sets everything up, builds, checks formatting, and runs every test with
# ctest (unit tests in parallel, multi-process tests one at a time), then
# prints the summary; then, on a full run, the multi-node tests on a Slurm
# cluster of simulated nodes (tests/slurm/run_tests.sh: skipped, saying why,
# where no cluster can start, a failure instead when CLUSTER_TESTS_REQUIRED=1).
# Extra arguments go to ctest (e.g. -L unit, -R Hello) and leave the Slurm
# tests out.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/lint.sh --format-only
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "test: a GPU is present; tests labelled gpu run too"
else
  echo "test: no GPU on this machine: tests labelled gpu are skipped (they run on the GPU machine)"
fi
status=0
# --timeout: a test without its own TIMEOUT property that hangs fails after
# 300 s (naming itself) instead of holding CI to its limit.
ctest --test-dir build --output-on-failure --timeout 300 -j"$(nproc)" "$@" || status=$?
if [ $# -eq 0 ]; then
  ./tests/slurm/run_tests.sh build || status=1
else
  echo "test: ctest arguments given: the Slurm multi-node tests are left out (tests/slurm/run_tests.sh runs them)"
fi
exit "$status"

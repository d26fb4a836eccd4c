#!/usr/bin/env bash
# Sets everything up, builds, checks formatting, and runs every test with
# ctest (unit tests in parallel, multi-process tests one at a time), then
# prints the summary. Extra arguments go to ctest (e.g. -L unit, -R Hello).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/lint.sh --format-only
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "test: a GPU is present; tests labelled gpu run too"
else
  echo "test: no GPU on this machine: tests labelled gpu are skipped (they run on the GPU machine)"
fi
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"

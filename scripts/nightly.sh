#!/usr/bin/env bash
# Runs the full collective correctness matrix (ctest label "nightly": every
# collective x type x op x size up to 16 MiB x offset x in-place mode x root,
# on 1, 2, 3, 4 and 8 ranks, under every forced algorithm and protocol) and
# prints how long it took. It builds in its own directory, configured with
# -DGPURUN_NIGHTLY_TESTS=ON, so that build/ (and scripts/test.sh, i.e. CI)
# never registers the nightly tests.
#   scripts/nightly.sh [extra ctest arguments, e.g. -R 8ranks_ring_ll]
# GPURUN_NIGHTLY_BUILD_DIR overrides the build directory (default build-nightly).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --no-build
dir="${GPURUN_NIGHTLY_BUILD_DIR:-build-nightly}"
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
mkdir -p "$dir"
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPURUN_NIGHTLY_TESTS=ON "${launcher[@]}" \
  >"$dir/nightly-configure.log" 2>&1 || { cat "$dir/nightly-configure.log"; exit 1; }
if ! cmake --build "$dir" -j"$(nproc)" --target gpurun coll_matrix coll_matrix_nightly_test >"$dir/nightly-build.log" 2>&1; then
  grep -E -B2 -A6 "error|Error" "$dir/nightly-build.log" | head -80
  echo "nightly: build failed (full log: $dir/nightly-build.log)"
  exit 1
fi
start=$(date +%s)
status=0
ctest --test-dir "$dir" -L nightly --output-on-failure "$@" || status=$?
elapsed=$(($(date +%s) - start))
printf 'nightly: the full collective matrix took %dh %02dm %02ds (ctest exit status %d)\n' \
  $((elapsed / 3600)) $((elapsed % 3600 / 60)) $((elapsed % 60)) "$status"
exit "$status"

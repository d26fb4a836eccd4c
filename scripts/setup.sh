#!/usr/bin/env bash
# Installs what gpurun needs from Debian's packages (only what is missing;
# silent when nothing is) and builds the project into build/.
#   scripts/setup.sh [--no-build] [extra cmake -D options...]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config libpmix-dev libucx-dev libhwloc-dev libboost-dev libgtest-dev
          clang-format clang-tidy)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "${1:-}" = "--no-build" ] && exit 0
cmake_args=("$@")
if [ ! -f build/CMakeCache.txt ] || [ ${#cmake_args[@]} -gt 0 ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cmake_args[@]}" >/tmp/gpurun-configure.$$.log 2>&1 ||
    { cat /tmp/gpurun-configure.$$.log; exit 1; }
fi
if ! cmake --build build -j"$(nproc)" >build/build.log 2>&1; then
  grep -E -B2 -A6 "error|Error" build/build.log | head -80
  echo "setup: build failed (full log: build/build.log)"
  exit 1
fi

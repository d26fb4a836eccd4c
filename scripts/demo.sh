#!/usr/bin/env bash
# Sets everything up, builds, and runs the demo job: four ranks started by
# gpurun find each other through PMIx.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
echo "+ build/bin/gpurun -n 4 build/bin/hello"
build/bin/gpurun -n 4 build/bin/hello

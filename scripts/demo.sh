#!/usr/bin/env bash
# Sets everything up, builds, and runs the demo job: four ranks started by
# gpurun sum a vector with grAllreduce, and every rank checks every element.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
echo "+ build/bin/gpurun -n 4 build/bin/allreduce"
build/bin/gpurun -n 4 build/bin/allreduce

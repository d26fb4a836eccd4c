#!/usr/bin/env bash
# Launch-time benchmark: `gpurun -n 2 build/bin/hello` against Open MPI's
# `mpirun -np 2` of the equivalent MPI program (bench/mpi_hello.c), run
# alternately, RUNS times each (default 20); prints every run, the medians,
# and the ratio gpurun/mpirun last.
#   bench/launch.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
[ "$runs" -ge 10 ] || { echo "launch.sh: use at least 10 runs" >&2; exit 2; }

source bench/mpi_setup.sh   # installs Open MPI if missing, sets mpirun_cmd
[ -x build/bin/gpurun ] && [ -x build/bin/hello ] || ./scripts/setup.sh
mkdir -p build/bench
mpicc -O2 -o build/bench/mpi_hello bench/mpi_hello.c

mpirun_cmd+=(-np 2)
gpurun_cmd=(build/bin/gpurun -n 2 build/bin/hello)

# Seconds one run of "$@" takes (its output discarded; a failure aborts the benchmark).
time_one() {
  local t0=$EPOCHREALTIME
  "$@" >/dev/null 2>&1 || { echo "launch.sh: '$*' failed" >&2; exit 1; }
  local t1=$EPOCHREALTIME
  echo "$t0 $t1" | awk '{printf "%.4f\n", $2 - $1}'
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# Warm the page cache for both before measuring.
time_one "${gpurun_cmd[@]}" >/dev/null
time_one "${mpirun_cmd[@]}" build/bench/mpi_hello >/dev/null

g=(); m=()
printf "%4s %12s %12s\n" run gpurun_s mpirun_s
for i in $(seq 1 "$runs"); do
  g+=("$(time_one "${gpurun_cmd[@]}")")
  m+=("$(time_one "${mpirun_cmd[@]}" build/bench/mpi_hello)")
  printf "%4d %12s %12s\n" "$i" "${g[-1]}" "${m[-1]}"
done
gm=$(printf '%s\n' "${g[@]}" | median)
mm=$(printf '%s\n' "${m[@]}" | median)
echo "median gpurun -n 2 hello:      ${gm} s"
echo "median mpirun -np 2 mpi_hello: ${mm} s"
awk -v g="$gm" -v m="$mm" 'BEGIN {printf "ratio gpurun/mpirun: %.3f (goal <= 0.3)\n", g / m}'

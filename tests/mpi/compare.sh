#!/usr/bin/env bash
# The MPI test programs (tests/mpi/*.c) and the plain MPI examples
# (examples/mpi: hello, ring, heat2d), each built twice from the same source,
# with Open MPI's mpicc and with gpurun's gpurun-cc, run with the same rank
# counts (mpirun --oversubscribe -n N, gpurun -n N), their standard outputs
# compared line by line. A program passes when, for every N, both runs exit
# with the status it expects (0; 3 for abort; non-zero for errors_fatal) and
# print the same lines. Prints PASS/FAIL per program (with the first differing
# lines), a summary, and exits 1 if any failed.
#   tests/mpi/compare.sh [--build DIR] [--ranks "1 2 3 4"] [--out DIR] [--ompi-only] [PROGRAM...]
#   tests/mpi/compare.sh --setup      install Open MPI if missing (bench/mpi_setup.sh), nothing else
# --build: the gpurun build tree holding bin/gpurun and bin/gpurun-cc (default build).
# --ompi-only: build and run with Open MPI only (checks the programs themselves).
# PROGRAM: a test name (coll_basic) or hello, ring, heat2d; default: all.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build
ranks="1 2 3 4"
out=""
ompi_only=0
programs=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --ompi-only) ompi_only=1; shift ;;
    --setup) source "$root/bench/mpi_setup.sh"; exit 0 ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "compare.sh: unknown option $1" >&2; exit 2 ;;
    *) programs+=("$1"); shift ;;
  esac
done
source "$root/bench/mpi_setup.sh" # installs Open MPI if missing, sets mpirun_cmd
if [ $ompi_only = 0 ] && [ ! -x "$build/bin/gpurun-cc" ]; then
  echo "compare.sh: no $build/bin/gpurun-cc (build gpurun's MPI library, or use --ompi-only)" >&2
  exit 2
fi
out=${out:-$build/mpi_compat}
mkdir -p "$out/ompi" "$out/gpurun"

# Every program: its source, arguments and expected exit status ("nonzero": any but 0).
declare -A source args status
for f in "$root"/tests/mpi/*.c; do
  name=$(basename "$f" .c)
  source[$name]=$f args[$name]="" status[$name]=0
done
status[abort]=3
status[errors_fatal]=nonzero
for name in hello ring heat2d; do
  source[$name]=$root/examples/mpi/$name.c args[$name]="" status[$name]=0
done
args[ring]="5"
args[heat2d]="--size 64 --steps 400 --print 100"
if [ ${#programs[@]} -eq 0 ]; then
  mapfile -t programs < <(printf '%s\n' "${!source[@]}" | sort)
fi

# status_ok WANT GOT
status_ok() { if [ "$1" = nonzero ]; then [ "$2" != 0 ]; else [ "$1" = "$2" ]; fi; }

# run_one LIB NAME N: runs the LIB build of NAME on N ranks; stdout into $out/LIB/NAME.N.out, stderr .err; prints the status.
run_one() {
  local lib=$1 name=$2 n=$3 rc=0 prog=$out/$1/$2
  local -a cmd
  if [ "$lib" = ompi ]; then
    cmd=("${mpirun_cmd[@]}" --oversubscribe -n "$n" "$prog")
  else
    cmd=("$build/bin/gpurun" -n "$n" --timeout 120 "$prog")
  fi
  # shellcheck disable=SC2086 # the arguments are words
  timeout 150 "${cmd[@]}" ${args[$name]} >"$out/$lib/$name.$n.out" 2>"$out/$lib/$name.$n.err" || rc=$?
  echo "$rc"
}

failed=()
for name in "${programs[@]}"; do
  if [ -z "${source[$name]:-}" ]; then
    echo "FAIL $name: no such program" && failed+=("$name") && continue
  fi
  problems=()
  for lib in ompi gpurun; do
    [ $lib = gpurun ] && [ $ompi_only = 1 ] && continue
    cc=mpicc
    [ $lib = gpurun ] && cc=$build/bin/gpurun-cc
    if ! "$cc" -O1 -I "$root/tests/mpi" "${source[$name]}" -o "$out/$lib/$name" -lm >"$out/$lib/$name.build" 2>&1; then
      problems+=("$lib: $cc failed: $(head -c 600 "$out/$lib/$name.build")")
    fi
  done
  if [ ${#problems[@]} -eq 0 ]; then
    for n in $ranks; do
      m=$(run_one ompi "$name" "$n")
      status_ok "${status[$name]}" "$m" || problems+=("-n $n: Open MPI exit status $m, expected ${status[$name]}: $(tail -n 3 "$out/ompi/$name.$n.err" | tr '\n' ' ')")
      [ $ompi_only = 1 ] && continue
      g=$(run_one gpurun "$name" "$n")
      status_ok "${status[$name]}" "$g" || problems+=("-n $n: gpurun exit status $g, expected ${status[$name]}: $(tail -n 3 "$out/gpurun/$name.$n.err" | tr '\n' ' ')")
      if ! diff -q "$out/ompi/$name.$n.out" "$out/gpurun/$name.$n.out" >/dev/null; then
        problems+=("-n $n: outputs differ (< Open MPI, > gpurun):
$(diff "$out/ompi/$name.$n.out" "$out/gpurun/$name.$n.out" | head -n 12 || true)")
      fi
    done
  fi
  if [ ${#problems[@]} -eq 0 ]; then
    echo "PASS $name (-n $ranks)"
  else
    failed+=("$name")
    echo "FAIL $name"
    printf '  %s\n' "${problems[@]}"
  fi
done
what="Open MPI against gpurun"
[ $ompi_only = 1 ] && what="Open MPI only"
echo "mpi compare ($what, ranks $ranks): $((${#programs[@]} - ${#failed[@]})) of ${#programs[@]} passed${failed:+; failed: ${failed[*]}}"
echo "outputs in $out"
[ ${#failed[@]} -eq 0 ]

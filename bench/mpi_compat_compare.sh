#!/usr/bin/env bash
# gpurun's MPI layer against Open MPI with the SAME benchmark sources
# (bench/mpi/p2p_mpi.c: ping-pong latency and windowed bandwidth;
# bench/mpi/coll_mpi.c: collective time per size, nccl-tests columns), each
# built twice, with mpicc and with gpurun-cc, and run ALTERNATELY (gpurun's
# build under gpurun, then Open MPI's under mpirun) REPS times (default 3),
# RANKS ranks (default 2), rank i bound to core i in both. Per size: the best
# of the repetitions for each (lowest time, highest bandwidth) and the ratio
# gpurun/Open MPI: for times lower is better, for bandwidth higher is better.
#   bench/mpi_compat_compare.sh [REPS]
#     BUILD=build dir holding bin/gpurun and bin/gpurun-cc (default build)
#     RANKS=2  P2P_MAX=4194304 (bytes)  COLL_MAX=16M  COLLS="allreduce bcast allgather"
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
build=${BUILD:-build}
ranks=${RANKS:-2}
p2p_max=${P2P_MAX:-4194304}
coll_max=${COLL_MAX:-16M}
read -r -a colls <<<"${COLLS:-allreduce bcast allgather}"
source bench/mpi_setup.sh # installs Open MPI if missing, sets mpirun_cmd
[ -x "$build/bin/gpurun-cc" ] || { echo "mpi_compat_compare.sh: no $build/bin/gpurun-cc" >&2; exit 1; }
bin=$build/bench/mpi_compat
mkdir -p "$bin/ompi" "$bin/gpurun"
for prog in p2p_mpi coll_mpi; do
  mpicc -O2 -o "$bin/ompi/$prog" "bench/mpi/$prog.c"
  "$build/bin/gpurun-cc" -O2 -o "$bin/gpurun/$prog" "bench/mpi/$prog.c"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# measure NAME ARGS...: one run of each build, "size value" lines into $tmp/{g,m}.NAME.REP.
# The value: column 2 of p2p_mpi's rows, column 6 (out-of-place time) of coll_mpi's.
measure() {
  local name=$1 col=2 rep=$2
  shift 2
  [ "$1" = coll_mpi ] && col=6
  local prog=$1
  shift
  "$build/bin/gpurun" -n "$ranks" --bind-to core "$bin/gpurun/$prog" "$@" |
    awk -v c=$col '!/^#/ && NF >= c {print $1, $c}' >"$tmp/g.$name.$rep"
  "${mpirun_cmd[@]}" -np "$ranks" --bind-to core "$bin/ompi/$prog" "$@" |
    awk -v c=$col '!/^#/ && NF >= c {print $1, $c}' >"$tmp/m.$name.$rep"
}
for rep in $(seq 1 "$reps"); do
  echo "round $rep/$reps" >&2
  measure latency "$rep" p2p_mpi latency 0 "$p2p_max"
  measure bw "$rep" p2p_mpi bw 1 "$p2p_max"
  for c in "${colls[@]}"; do measure "$c" "$rep" coll_mpi "$c" -b 8 -e "$coll_max"; done
done

# table NAME UNIT BEST(min|max): per size the best of each over the rounds, and the ratio.
table() {
  echo
  echo "== $1 ($2), best of $reps alternating rounds, $ranks ranks; ratio = gpurun/Open MPI =="
  printf "%10s %14s %14s %8s\n" size gpurun open_mpi ratio
  awk -v best="$3" 'FNR == 1 {lib = (FILENAME ~ /\/g\./) ? "g" : "m"}
       { sizes[$1] = 1; k = lib SUBSEP $1
         if (!(k in v) || (best == "min" ? $2 < v[k] : $2 > v[k])) v[k] = $2 }
       END { for (s in sizes) print s, v["g", s], v["m", s] }' "$tmp"/g."$1".* "$tmp"/m."$1".* |
    sort -n | awk '{printf "%10d %14.2f %14.2f %8.2f\n", $1, $2, $3, ($3 > 0 ? $2 / $3 : 0)}'
}
echo "gpurun: $("$build/bin/gpurun-cc" --showme:version 2>/dev/null || echo "$build/bin/gpurun-cc"); Open MPI: $(mpirun --version | head -n 1)"
table latency "us one-way, lower is better" min
table bw "MB/s, higher is better" max
for c in "${colls[@]}"; do table "$c" "us per call, float sum, lower is better" min; done

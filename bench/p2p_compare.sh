#!/usr/bin/env bash
# Point-to-point comparison against Open MPI on this machine, 2 ranks:
# gpurun-bench latency/bw and bench/mpi/p2p_mpi.c (same loops) run
# alternately ROUNDS times (default 3); per size the median of each and the
# ratio are printed. Latency: ratio = gpurun/mpi time (goal <= 1.0 up to
# 8 KiB); bandwidth: ratio = gpurun/mpi MB/s (goal >= 1.0 from 64 KiB).
#   bench/p2p_compare.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
source bench/mpi_setup.sh   # installs Open MPI if missing, sets mpirun_cmd
mkdir -p build/bench
mpicc -O2 -o build/bench/p2p_mpi bench/mpi/p2p_mpi.c
[ -x build/bin/gpurun-bench ] || ./scripts/setup.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# run KIND ROUND: both programs' "size value" lines into $tmp/{g,m}.KIND.ROUND
run() {
  local kind=$1 round=$2 max=$3
  build/bin/gpurun -n 2 build/bin/gpurun-bench "$kind" -b 0 -e "$max" | awk '!/^#/{print $1, $2}' \
    >"$tmp/g.$kind.$round"
  "${mpirun_cmd[@]}" -np 2 build/bench/p2p_mpi "$kind" 0 "$max" | awk '!/^#/{print $1, $2}' >"$tmp/m.$kind.$round"
}
for r in $(seq 1 "$rounds"); do
  run latency "$r" $((1 << 20))
  run bw "$r" $((4 << 20))
done

# table KIND UNIT RATIO-EXPR: medians per size over the rounds, and the ratio.
table() {
  local kind=$1 unit=$2
  echo
  echo "== $kind ($unit), median of $rounds alternating rounds, 2 ranks =="
  printf "%10s %14s %14s %10s\n" size gpurun open_mpi ratio
  cat "$tmp"/g."$kind".* | awk '{print $1}' | sort -n -u | while read -r size; do
    g=$(cat "$tmp"/g."$kind".* | awk -v s="$size" '$1==s{print $2}' | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
    m=$(cat "$tmp"/m."$kind".* | awk -v s="$size" '$1==s{print $2}' | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
    awk -v s="$size" -v g="$g" -v m="$m" 'BEGIN{printf "%10s %14.2f %14.2f %10.2f\n", s, g, m, (m > 0 ? g / m : 0)}'
  done
}
table latency "us one-way; ratio = gpurun/mpi time, lower is better"
table bw "MB/s; ratio = gpurun/mpi bandwidth, higher is better"

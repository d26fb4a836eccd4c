#!/usr/bin/env bash
# gpurun against Open MPI across simulated nodes, both launched by the same
# Slurm (`srun --mpi=pmix`, Open MPI direct-launched through Slurm's PMIx) on
# the cluster of scripts/slurm_cluster.sh: ping-pong latency between two
# nodes (1 rank each: gpurun-bench latency vs bench/mpi/p2p_mpi.c) and host
# allreduce over NODES nodes x PPN ranks (gpurun-bench allreduce vs
# bench/mpi/coll_mpi.c, float sum, out of place), run alternately ROUNDS times
# (default 3); COLLS="allreduce allgather ..." (default allreduce) compares
# other collectives too, each the same way (bcast: gpurun's in-place grBcast
# against MPI_Bcast). Per size: the median of each and the ratio gpurun/Open MPI of
# the times (lower is better). UCX stays on loopback (UCX_NET_DEVICES=lo), for
# gpurun's wire and Open MPI's alike.
# Both allreduce programs run ITERS timed iterations (default 100) after
# WARMUP (default 10) per size; more ranks than cores (NODES x PPN > nproc)
# makes both libraries' polling ranks share cores, and the times then say
# more about the scheduler than about the libraries (a warning is printed).
#   bench/slurm_compare.sh [ROUNDS]    BUILD=build-dir (default build), NODES=2, PPN=1,
#                                      LAT_MAX=65536 (bytes), AR_MAX=1M (largest collective size),
#                                      COLLS=allreduce, ITERS=100, WARMUP=10,
#                                      BASE=another gpurun build (its bin/ and lib/), optional
# With BASE the other build's gpurun-bench runs too, in the same rounds (so a
# change is measured before/after against the same Open MPI runs): columns
# base and base/ompi are added.
# Starts its own cluster (its own folder; the ports of CLUSTER_PORT must be
# free) and stops it at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
build=${BUILD:-build}
nodes=${NODES:-2}
ppn=${PPN:-1}
lat_max=${LAT_MAX:-65536}
ar_max=${AR_MAX:-1M}
read -r -a colls <<<"${COLLS:-allreduce}"
for c in "${colls[@]}"; do
  case $c in
    allreduce | allgather | bcast | reduce | reducescatter | alltoall) ;;
    *)
      echo "slurm_compare.sh: COLLS: '$c' is not one of allreduce allgather bcast reduce reducescatter alltoall" >&2
      exit 1
      ;;
  esac
done
iters=${ITERS:-100}
warmup=${WARMUP:-10}
base=${BASE:-}
[ -z "$base" ] || [ -x "$base/bin/gpurun-bench" ] || {
  echo "slurm_compare.sh: no $base/bin/gpurun-bench (BASE)" >&2
  exit 1
}
[ $((nodes * ppn)) -le "$(nproc)" ] ||
  echo "slurm_compare.sh: warning: $((nodes * ppn)) allreduce ranks on $(nproc) cores: oversubscribed" >&2
[ -x "$build/bin/gpurun-bench" ] || {
  echo "slurm_compare.sh: no $build/bin/gpurun-bench (build first)" >&2
  exit 1
}
source bench/mpi_setup.sh # installs Open MPI if missing
mkdir -p "$build/bench"
mpicc -O2 -o "$build/bench/p2p_mpi" bench/mpi/p2p_mpi.c
mpicc -O2 -o "$build/bench/coll_mpi" bench/mpi/coll_mpi.c

export CLUSTER_DIR=${CLUSTER_DIR:-/tmp/gpurun-slurm-bench.$$}
scripts/slurm_cluster.sh start "$nodes"
tmp=$(mktemp -d)
trap 'scripts/slurm_cluster.sh stop >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
export SLURM_CONF=$CLUSTER_DIR/etc/slurm.conf UCX_NET_DEVICES=lo
limit=300
srun_cmd=(timeout "$limit" srun --mpi=pmix --kill-on-bad-exit=1)

# gpurun-bench's time column compared: out of place (6), except bcast's in
# place (10: grBcast, MPI's one-buffer semantics, as bench/coll_compare.sh
# compares it); coll_mpi's is always 6.
gpurun_column() { [ "$1" = bcast ] && echo 10 || echo 6; }

for r in $(seq 1 "$rounds"); do
  echo "round $r/$rounds" >&2
  "${srun_cmd[@]}" -N2 -n2 "$build/bin/gpurun-bench" latency -b 0 -e "$lat_max" |
    awk '!/^#/ && NF >= 2 {print $1, $2}' >"$tmp/g.lat.$r"
  if [ -n "$base" ]; then
    "${srun_cmd[@]}" -N2 -n2 "$base/bin/gpurun-bench" latency -b 0 -e "$lat_max" |
      awk '!/^#/ && NF >= 2 {print $1, $2}' >"$tmp/b.lat.$r"
  fi
  "${srun_cmd[@]}" -N2 -n2 "$build/bench/p2p_mpi" latency 0 "$lat_max" |
    awk '!/^#/ && NF >= 2 {print $1, $2}' >"$tmp/m.lat.$r"
  for c in "${colls[@]}"; do
    col=$(gpurun_column "$c")
    "${srun_cmd[@]}" -N"$nodes" -n$((nodes * ppn)) "$build/bin/gpurun-bench" "$c" -b 8 -e "$ar_max" -c 0 \
      -n "$iters" -w "$warmup" |
      awk -v col="$col" '!/^#/ && NF >= 13 {print $1, $col}' >"$tmp/g.$c.$r"
    if [ -n "$base" ]; then
      "${srun_cmd[@]}" -N"$nodes" -n$((nodes * ppn)) "$base/bin/gpurun-bench" "$c" -b 8 -e "$ar_max" -c 0 \
        -n "$iters" -w "$warmup" |
        awk -v col="$col" '!/^#/ && NF >= 13 {print $1, $col}' >"$tmp/b.$c.$r"
    fi
    "${srun_cmd[@]}" -N"$nodes" -n$((nodes * ppn)) "$build/bench/coll_mpi" "$c" -b 8 -e "$ar_max" \
      -n "$iters" -w "$warmup" |
      awk '!/^#/ && NF >= 13 {print $1, $6}' >"$tmp/m.$c.$r"
  done
done

# table KIND TITLE: per size the median time of each program over the rounds and their ratio (and BASE's).
table() {
  local kind=$1
  echo
  echo "== $2 =="
  if [ -n "$base" ]; then
    printf "%10s %12s %12s %8s %12s %9s\n" size gpurun open_mpi ratio base base/ompi
  else
    printf "%10s %12s %12s %8s\n" size gpurun open_mpi ratio
  fi
  awk -v with_base="${base:+1}" 'FNR == 1 { n = split(FILENAME, parts, "/"); prog = substr(parts[n], 1, 1) }
       { k = ++count[prog, $1]; t[prog, $1, k] = $2; sizes[$1] = 1 }
       function median(p, s,   k, i, j, v, tmp) {
         k = count[p, s]; if (k == 0) return -1
         for (i = 1; i <= k; i++) v[i] = t[p, s, i]
         for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { tmp = v[i]; v[i] = v[j]; v[j] = tmp }
         return v[int((k + 1) / 2)]
       }
       function cell(v) { return v < 0 ? sprintf("%12s", "missing") : sprintf("%12.2f", v) }
       function ratio(a, b, w) { return (a < 0 || b <= 0) ? sprintf("%" w "s", "-") : sprintf("%" w ".2f", a / b) }
       END { for (s in sizes) { g = median("g", s); m = median("m", s)
               printf "%10d %s %s %s", s, cell(g), cell(m), ratio(g, m, 8)
               if (with_base) { b = median("b", s); printf " %s %s", cell(b), ratio(b, m, 9) }
               printf "\n" } }' \
    "$tmp"/[gmb]."$kind".* | sort -n
}
table lat "ping-pong, 2 nodes x 1 rank: one-way latency in us, median of $rounds; ratio = gpurun/Open MPI (lower is better)"
for c in "${colls[@]}"; do
  table "$c" "$c float sum ($([ "$c" = bcast ] && echo "gpurun in place, MPI_Bcast" || echo "out of place")), $nodes nodes x $ppn ranks: time in us, median of $rounds; ratio = gpurun/Open MPI (lower is better)"
done

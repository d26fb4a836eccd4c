#!/usr/bin/env bash
# Collective comparison against Open MPI on this machine, 2 ranks, float sum,
# root 0: `gpurun-bench COLL` and bench/mpi/coll_mpi.c (the same sweep, the
# same iteration counts, the same timing: per-iteration average of a timed
# loop after a barrier, the slowest rank's) run ALTERNATELY, gpurun then
# mpirun, REPS times each (default 3), for allreduce, bcast, reduce and
# allgather, 8 B to MAX (default 16M). Both bind rank i to core i
# (--bind-to core). Per size: the best (lowest) time of each over the
# repetitions and the ratio gpurun/Open MPI (lower is better), the ratio of
# the medians beside it, then a verdict
# per issue goal: latency <= 1.0x Open MPI up to 64 KiB, bandwidth >= 1.0x
# (time ratio <= 1.0) from 1 MiB.
# Columns compared: out of place for allreduce, reduce and allgather; for bcast
# gpurun's in-place grBcast (MPI semantics, one buffer) against MPI_Bcast.
#   bench/coll_compare.sh [REPS]        BUILD=build-dir (default build), MAX=16M, COLLS="allreduce bcast"
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
build=${BUILD:-build}
max=${MAX:-16M}
read -r -a colls <<<"${COLLS:-allreduce bcast reduce allgather}"
source bench/mpi_setup.sh # installs Open MPI if missing, sets mpirun_cmd
mkdir -p "$build/bench"
mpicc -O2 -o "$build/bench/coll_mpi" bench/mpi/coll_mpi.c
if [ ! -x "$build/bin/gpurun-bench" ]; then
  [ "$build" = build ] || { echo "coll_compare.sh: no $build/bin/gpurun-bench" >&2; exit 1; }
  ./scripts/setup.sh
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Time column of the rows: 6 = out of place, 10 = in place.
column() { [ "$1" = bcast ] && [ "$2" = g ] && echo 10 || echo 6; }
for rep in $(seq 1 "$reps"); do
  for c in "${colls[@]}"; do
    echo "round $rep/$reps: $c" >&2
    "$build/bin/gpurun" -n 2 --bind-to core "$build/bin/gpurun-bench" "$c" -b 8 -e "$max" -c 0 |
      awk -v col="$(column "$c" g)" '!/^#/ && NF >= 13 {print $1, $col}' >"$tmp/g.$c.$rep"
    "${mpirun_cmd[@]}" -np 2 --bind-to core "$build/bench/coll_mpi" "$c" -b 8 -e "$max" |
      awk -v col="$(column "$c" m)" '!/^#/ && NF >= 13 {print $1, $col}' >"$tmp/m.$c.$rep"
  done
done

verdicts=()
for c in "${colls[@]}"; do
  echo
  echo "== $c: best of $reps alternating runs, 2 ranks, float sum; time in us; ratio = gpurun/Open MPI (lower is better) =="
  printf "%10s %12s %12s %8s  %-16s %8s\n" size gpurun open_mpi ratio goal median_ratio
  # One line per size: size, best gpurun time, best Open MPI time, median
  # gpurun time, median Open MPI time. The verdict is on the best times; the
  # medians show whether one quick round made it (these VMs have such rounds).
  awk 'function median(p, k,   n, i, j, v, t) {
         n = cnt[p, k]; for (i = 1; i <= n; i++) v[i] = val[p, k, i]
         for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
         return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
       FNR == 1 {prog = (FILENAME ~ /\/g\./) ? "g" : "m"}
       { key = $1; sizes[key] = 1; val[prog, key, ++cnt[prog, key]] = $2
         if (!((prog, key) in best) || $2 < best[prog, key]) best[prog, key] = $2 }
       END { for (s in sizes) print s, best["g", s], best["m", s], median("g", s), median("m", s) }' \
    "$tmp"/g."$c".* "$tmp"/m."$c".* | sort -n >"$tmp/table.$c"
  awk '{ goal = "-"
         if ($1 <= 65536) goal = ($2 <= $3 ? "latency ok" : "latency MISSED")
         if ($1 >= 1048576) goal = ($2 <= $3 ? "bandwidth ok" : "bandwidth MISSED")
         printf "%10d %12.2f %12.2f %8.2f  %-16s %8.2f\n", $1, $2, $3, ($3 > 0 ? $2 / $3 : 0), goal, ($5 > 0 ? $4 / $5 : 0) }' "$tmp/table.$c"
  verdicts+=("$(awk -v c="$c" '
      $1 <= 65536 { nl++; if ($2 > $3) {ml++; if ($3 > 0 && $2 / $3 > wl) wl = $2 / $3} }
      $1 >= 1048576 { nb++; if ($2 > $3) {mb++; if ($3 > 0 && $2 / $3 > wb) wb = $2 / $3} }
      END {
        printf "%-10s latency <= 1.0x up to 64 KiB: %s", c, (ml ? sprintf("MISSED at %d of %d sizes (worst %.2fx)", ml, nl, wl) : sprintf("met at all %d sizes", nl))
        printf ";  bandwidth >= 1.0x from 1 MiB: %s\n", (nb == 0 ? "no size >= 1 MiB" : mb ? sprintf("MISSED at %d of %d sizes (worst %.2fx time)", mb, nb, wb) : sprintf("met at all %d sizes", nb))
      }' "$tmp/table.$c")")
done
echo
echo "== verdict per issue goal =="
printf '%s\n' "${verdicts[@]}"

#!/usr/bin/env bash
# The GPU tuner's choice per size next to the best forced choice, measured on
# the GPU machine (issue 6: "the chosen (algorithm, protocol,
# channels) and predicted time per size, and the measured best forced
# choice next to it"):
#
#   bench/tune/gpu_choice_check.sh BIN_DIR FUNC RANKS MIN MAX FACTOR [RING_CHANNELS]
#
# Runs gpurun-bench FUNC --device cuda once unforced and once per
# (GPURUN_ALGO, GPURUN_PROTO) pair the GPU path has for FUNC, takes each
# size's out-of-place time, and prints per size: the choice and prediction of
# gpurun-tune --gpu (the same ChooseGpu over the same tables; RING_CHANNELS is
# the ring's channel count on the machine, 128 on 2 x H200), the unforced
# time, the fastest forced pair and its time, and unforced / fastest. A pair
# the GPU path refuses at some size (one-shot and two-shot above their
# limit) simply has no time there. REPS rounds (default 3) run every job
# once each, in turn, and each time is the best of its rounds: below a few
# microseconds one job differs from the next by 1-2 us (run 19f of
# 2026-11-30: the same ring/Simple reduce took 8.25 and 6.09 us in two jobs
# seconds apart), which one round cannot tell from the tuner's error.
# Leaves every log in $OUT_DIR (default /tmp/choice).
set -euo pipefail
[ $# -ge 6 ] || { sed -n '2,21p' "$0"; exit 2; }
B=$1 FUNC=$2 N=$3 MIN=$4 MAX=$5 F=$6 CH=${7:-128}
OUT_DIR=${OUT_DIR:-/tmp/choice}
REPS=${REPS:-3}
mkdir -p "$OUT_DIR"
pairs="ring/ll ring/ll128 ring/simple"
[ "$FUNC" = allreduce ] && pairs="$pairs tree/ll tree/ll128 tree/simple oneshot/ll twoshot/ll"

# size -> out-of-place time (us) from a gpurun-bench log (nccl-tests columns).
times() { awk '$1 ~ /^[0-9]+$/ && NF >= 12 { print $1, $6 }' "$1"; }

bench() {  # NAME ALGO PROTO ROUND
  env GPURUN_ALGO="$2" GPURUN_PROTO="$3" "$B/gpurun" -n "$N" "$B/gpurun-bench" "$FUNC" --device cuda \
    -b "$MIN" -e "$MAX" -f "$F" -c 1 >"$OUT_DIR/$1.$4.log" 2>&1 || true
  times "$OUT_DIR/$1.$4.log" >>"$OUT_DIR/$1.all"
}

names="auto"
for p in $pairs; do names="$names ${p/\//_}"; done
for name in $names; do rm -f "$OUT_DIR/$name.all"; done
for round in $(seq "$REPS"); do
  bench auto "" "" "$round"
  for p in $pairs; do bench "${p/\//_}" "${p%/*}" "${p#*/}" "$round"; done
done
# Per size, the best time of the rounds, in size order.
for name in $names; do
  awk '!($1 in t) || $2 + 0 < t[$1] + 0 { if (!($1 in t)) o[++n] = $1; t[$1] = $2 }
       END { for (i = 1; i <= n; i++) print o[i], t[o[i]] }' "$OUT_DIR/$name.all" >"$OUT_DIR/$name.t"
done
"$B/gpurun-tune" --gpu "$FUNC" -n "$N" -c "$CH" -b "$MIN" -e "$MAX" -f "$F" >"$OUT_DIR/tune.log"

echo "# $FUNC on $N ranks: tuner's choice (gpurun-tune --gpu -c $CH) against every forced pair, out-of-place us, best of $REPS rounds"
printf "%12s %-16s %9s %9s %-14s %9s %7s\n" bytes choice predicted auto best-forced time auto/best
awk -v pairs="$pairs" -v dir="$OUT_DIR" '
  BEGIN {
    n = split(pairs, p, " ")
    while ((getline l < (dir "/auto.t")) > 0) { split(l, f, " "); auto[f[1]] = f[2]; order[++m] = f[1] }
    for (i = 1; i <= n; i++) {
      name = p[i]; gsub("/", "_", name)
      while ((getline l < (dir "/" name ".t")) > 0) {
        split(l, f, " ")
        if (!(f[1] in best) || f[2] + 0 < best[f[1]] + 0) { best[f[1]] = f[2]; who[f[1]] = p[i] }
      }
    }
    while ((getline l < (dir "/tune.log")) > 0) {
      split(l, f, " ")
      if (f[1] ~ /^[0-9]+$/) { choice[f[1]] = f[2] "/" f[3] "/" f[4] "ch"; pred[f[1]] = f[5] }
    }
    for (k = 1; k <= m; k++) {
      s = order[k]
      printf "%12s %-16s %9s %9s %-14s %9s %7.2f\n", s, choice[s], pred[s], auto[s], who[s], best[s],
             (best[s] > 0 ? auto[s] / best[s] : 0)
    }
  }'

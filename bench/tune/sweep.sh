#!/usr/bin/env bash
# Forced (GPURUN_ALGO, GPURUN_PROTO) sweeps of one collective with
# gpurun-bench, the data the host tuner's tables are refitted from
# (coll/tuner/tuner_tables_host.cc). Each pair runs REPEATS times, alternating
# pairs between repeats; the table keeps, per size, the minimum out-of-place
# time (us) over the repeats (the machine is shared: the minimum is the least
# disturbed run). Pairs the host path lacks (tree and oneshot outside
# allreduce) are skipped, not errors. Compare with `gpurun-tune COLL -n RANKS -b MIN -e MAX
# -f FACTOR`, which prints the model's time for the same pairs and sizes.
#
#   bench/tune/sweep.sh [-B BUILD_DIR] [-n RANKS] [-r REPEATS] [COLL [gpurun-bench flags...]]
#   bench/tune/sweep.sh -n 2 allreduce -b 8 -e 64M -f 4
set -euo pipefail

build=build
ranks=2
repeats=3
while getopts "B:n:r:" opt; do
  case $opt in
    B) build=$OPTARG ;;
    n) ranks=$OPTARG ;;
    r) repeats=$OPTARG ;;
    *) echo "usage: $0 [-B BUILD_DIR] [-n RANKS] [-r REPEATS] [COLL [gpurun-bench flags...]]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
coll=${1:-allreduce}
shift || true
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(-b 8 -e 64M -f 4)

gpurun=$build/bin/gpurun
bench=$build/bin/gpurun-bench
for exe in "$gpurun" "$bench"; do
  [ -x "$exe" ] || { echo "$0: $exe not found (build it, or pass -B BUILD_DIR)" >&2; exit 1; }
done

algos=(ring)
[ "$coll" = allreduce ] && algos+=(tree oneshot)
protos=(ll ll128 simple)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for ((rep = 0; rep < repeats; rep++)); do
  for algo in "${algos[@]}"; do
    for proto in "${protos[@]}"; do
      log=$out/$algo-$proto-$rep.txt
      if ! GPURUN_ALGO=$algo GPURUN_PROTO=$proto timeout 600 "$gpurun" -n "$ranks" "$bench" "$coll" \
        "${flags[@]}" -c 1 >"$log" 2>&1; then
        echo "$0: $algo/$proto run $rep failed:" >&2
        tail -5 "$log" >&2
        exit 1
      fi
    done
  done
done

# Data rows: size count type redop root time ...; keep the minimum time.
printf '# %s, %d ranks, min over %d runs of the out-of-place time (us); %s\n' "$coll" "$ranks" "$repeats" \
  "$(date -u +%FT%TZ) on $(hostname), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%12s' bytes
for algo in "${algos[@]}"; do for proto in "${protos[@]}"; do printf ' %13s' "$algo/$proto"; done; done
printf '\n'
cols=()
for algo in "${algos[@]}"; do
  for proto in "${protos[@]}"; do
    cat "$out/$algo-$proto-"*.txt | awk '$1 ~ /^[0-9]+$/ && NF >= 9 {
        if (!($1 in best) || $6 < best[$1]) best[$1] = $6 }
      END { for (s in best) print s, best[s] }' | sort -n >"$out/$algo-$proto.min"
    cols+=("$out/$algo-$proto.min")
  done
done
paste "${cols[@]}" | awk '{ printf "%12s", $1; for (i = 2; i <= NF; i += 2) printf " %13s", $i; printf "\n" }'

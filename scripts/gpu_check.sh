#!/usr/bin/env bash
# The one script for the GPU machine: runs every GPU test binary and the
# GPU benchmarks against NCCL, from the project root of a tree that carries
# the bundle made here with `../shared/tools/gpu-bundle.sh .gpu build/bin`
# (.gpu/bin needs gpurun, coll_matrix, gpurun-bench and the gpu_*_test
# binaries). It builds nothing. nvidia-smi -L, nvidia-smi topo -m and every
# log go to OUTDIR; a short summary comes last (also OUTDIR/summary.txt). One failing step does not stop the others; the exit
# status is 0 only when every step passed (2: bad usage or no bundle).
#
#   scripts/gpu_check.sh [options] OUTDIR
#     --no-tests          skip the test binaries (.gpu/bin/gpu_*_test)
#     --no-bench          skip the benchmarks
#     --colls LIST        benchmarks to run, gpurun-bench names
#                         (default: every one, allreduce,allgather,reduce_scatter,broadcast,
#                         reduce,alltoall,gather,scatter,sendrecv)
#     --test-colls LIST   restrict the tests to these collectives (coll_matrix names:
#                         allreduce,bcast,broadcast,reduce,allgather,reducescatter,...)
#     --gtest-filter F    --gtest_filter for every test binary (e.g. '*Supported*:-*huge*')
#     --max-bytes SIZE    -e of every benchmark (default 8G; 4G for allgather, reduce_scatter,
#                         alltoall, gather, scatter)
#     --factor F          -f of the timed sweeps (default 2; 4 halves the rows, for a 10-minute slot)
#     --launcher PATH     the gpurun to use (default .gpu/bin/gpurun)
#     --bin DIR           the bundle's executables (default .gpu/bin)
#     --nccl-lib PATH     libnccl.so.2 (default: the one of python3's nvidia.nccl package)
#     --test-timeout S    per test binary (default 1800)
#     --bench-timeout S   per benchmark (default 900)
# NVLink multicast stays off: NCCL_NVLS_ENABLE=0 for every job, never enabled.
set -uo pipefail

usage() { sed -n '10,27p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

run_tests=1 run_bench=1 bench_colls=allreduce,allgather,reduce_scatter,broadcast,reduce,alltoall,gather,scatter,sendrecv
test_colls='' gtest_filter='' max_bytes='' launcher='' bin='' nccl_lib=''
test_timeout=1800 bench_timeout=900 outdir='' factor=2
while (($#)); do
  case "$1" in
    --no-tests) run_tests=0 ;;
    --no-bench) run_bench=0 ;;
    --colls) bench_colls=${2:?--colls needs a list}; shift ;;
    --test-colls) test_colls=${2:?--test-colls needs a list}; shift ;;
    --gtest-filter) gtest_filter=${2:?--gtest-filter needs a pattern}; shift ;;
    --max-bytes) max_bytes=${2:?--max-bytes needs a size}; shift ;;
    --factor) factor=${2:?--factor needs a number}; shift ;;
    --launcher) launcher=${2:?--launcher needs a path}; shift ;;
    --bin) bin=${2:?--bin needs a folder}; shift ;;
    --nccl-lib) nccl_lib=${2:?--nccl-lib needs a path}; shift ;;
    --test-timeout) test_timeout=${2:?--test-timeout needs seconds}; shift ;;
    --bench-timeout) bench_timeout=${2:?--bench-timeout needs seconds}; shift ;;
    -h|--help) usage ;;
    -*) echo "gpu_check: unknown option $1" >&2; usage ;;
    *) [ -z "$outdir" ] || { echo "gpu_check: one OUTDIR only" >&2; usage; }; outdir=$1 ;;
  esac
  shift
done
[ -n "$outdir" ] || usage
mkdir -p "$outdir" || { echo "gpu_check: cannot make $outdir" >&2; exit 2; }
outdir=$(cd "$outdir" && pwd)
cd "$(dirname "$0")/.." || exit 2
root=$PWD
bin=$(cd "${bin:-.gpu/bin}" 2>/dev/null && pwd) || { echo "gpu_check: no bundle folder ${bin:-.gpu/bin}" >&2; exit 2; }
launcher=${launcher:-$bin/gpurun}
[ -x "$launcher" ] || { echo "gpu_check: no launcher at $launcher" >&2; exit 2; }

export LD_LIBRARY_PATH="$root/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export NCCL_NVLS_ENABLE=0
[ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"  # compute-sanitizer
export GR_TEST_BIN_DIR="$bin" GR_TEST_LAUNCHER="$launcher"
[ -n "$test_colls" ] && export GR_TEST_GPU_COLLS="$test_colls"

summary=()  # one line per step
failed=0
record() {  # record STATUS NAME DETAIL
  summary+=("$(printf '  %-5s %-24s %s' "$1" "$2" "$3")")
  [ "$1" = PASS ] || [ "$1" = SKIP ] || failed=$((failed + 1))
}

# The machine, for the record.
{ nvidia-smi -L; } >"$outdir/nvidia-smi-L.txt" 2>&1 || record FAIL nvidia-smi "nvidia-smi -L failed (see nvidia-smi-L.txt)"
nvidia-smi topo -m >"$outdir/nvidia-smi-topo.txt" 2>&1
nvidia-smi >"$outdir/nvidia-smi.txt" 2>&1
"$launcher" --print-params >"$outdir/gpurun-params.txt" 2>&1
cat "$outdir/nvidia-smi-L.txt"
echo "gpu_check: launcher $launcher, binaries $bin, logs in $outdir"

# "P passed, F failed, S skipped" from a gtest log (works for a killed run too).
gtest_counts() {
  local p f s
  p=$(grep -c '^\[       OK \] ' "$1")
  f=$(grep -cE '^\[  FAILED  \] .*\([0-9]+ ms\)$' "$1")
  s=$(grep -cE '^\[  SKIPPED \] .*\([0-9]+ ms\)$' "$1")
  echo "$p passed, $f failed, $s skipped"
}

run_test_binary() {
  local t=$1 name log start rc counts
  name=$(basename "$t")
  log="$outdir/$name.log"
  local args=("--gtest_output=xml:$outdir/$name.xml")
  [ -n "$gtest_filter" ] && args+=("--gtest_filter=$gtest_filter")
  echo "gpu_check: $name ..."
  start=$SECONDS
  timeout -k 30 "$test_timeout" "$t" "${args[@]}" >"$log" 2>&1
  rc=$?
  counts=$(gtest_counts "$log")
  local detail="$counts ($((SECONDS - start)) s, exit $rc)"
  [ $rc -eq 124 ] && detail+=" killed after ${test_timeout} s"
  if [ $rc -eq 0 ]; then record PASS "$name" "$detail"; else record FAIL "$name" "$detail"; fi
}

# A first smoke run: gpu_allreduce checks its results and prints one busbw.
if [ -x "$bin/gpu_allreduce" ]; then
  for count in 1048576 67108864; do
    echo "gpu_check: gpu_allreduce $count ..."
    if timeout -k 10 120 "$launcher" -n 2 "$bin/gpu_allreduce" "$count" >"$outdir/gpu_allreduce_$count.log" 2>&1; then
      record PASS "gpu_allreduce $count" "$(tail -n 1 "$outdir/gpu_allreduce_$count.log")"
    else
      record FAIL "gpu_allreduce $count" "$(tail -n 2 "$outdir/gpu_allreduce_$count.log" | tr '\n' ' ')"
    fi
  done
fi

if ((run_tests)); then
  shopt -s nullglob
  tests=("$bin"/gpu_*_test)
  ((${#tests[@]})) || record FAIL tests "no gpu_*_test in $bin"
  for t in "${tests[@]}"; do run_test_binary "$t"; done
fi

find_nccl() {
  [ -n "$nccl_lib" ] && { echo "$nccl_lib"; return; }
  local dir py
  for py in python3 /usr/bin/python3 /usr/local/bin/python3 /opt/conda/bin/python3; do
    dir=$("$py" -c "import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))" 2>/dev/null) &&
      [ -e "$dir/lib/libnccl.so.2" ] && { echo "$dir/lib/libnccl.so.2"; return; }
  done
  # Not importable from these interpreters: look for the file itself.
  find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libnccl.so.2' -print 2>/dev/null | head -n 1
}

bench_max() {  # the -e of one benchmark
  [ -n "$max_bytes" ] && { echo "$max_bytes"; return; }
  case "$1" in
    allgather|reduce_scatter|reducescatter|alltoall|gather|scatter) echo 4G ;;  # nranks x the buffers of the others
    *) echo 8G ;;
  esac
}

# The largest size's row of a gpurun-bench log: with --compare nccl (19
# columns: size count type redop root, then out-of-place and in-place blocks
# of gpurun time busbw #wrong, nccl time busbw #wrong, ratio) its ratios, and
# the footer's geometric mean; else the row as it is.
max_size_ratio() {
  grep -E '^ *[0-9]+ +[0-9]+ ' "$1" | tail -n 1 | awk '
    NF == 19 { printf "%s B %s %s: busbw gpurun/nccl %s out of place (%s/%s GB/s), %s in place (%s/%s GB/s)\n",
                      $1, $3, $4, $12, $7, $10, $19, $14, $17; next }
    { print "largest row: " $0 }'
  grep -E '^# busbw gpurun/nccl' "$1" | tail -n 1
}

# run_bench COLL: the timed sweep up to the largest size without data
# checks (-c 0: a host-side check of GiB buffers would dominate the run);
# run_bench COLL check: a checked sweep up to 64 MiB; run_bench COLL group:
# 8 calls an iteration in one group (-m 8) up to 1 MiB, eager and from a
# graph, against NCCL's group launch.
run_bench() {
  local coll=$1 kind=${2:-perf} log="$outdir/bench_$1_${2:-perf}.log" start rc
  local cmd=("$launcher" -n 2 "$bin/gpurun-bench" "$coll" --device cuda)
  [ -n "$nccl" ] && cmd+=(--compare nccl --nccl-lib "$nccl")
  if [ "$kind" = check ]; then
    cmd+=(-b 8 -e 64M -f 4 -c 1)
  elif [ "$kind" = group ]; then
    cmd+=(-b 8 -e 1M -f 4 -c 1 -m 8)
  elif [ "$kind" = group_graph ]; then
    cmd+=(-b 8 -e 1M -f 4 -c 1 -m 8 --graph)
  else
    cmd+=(-b 8 -e "$(bench_max "$coll")" -f "$factor" -c 0)
  fi
  echo "gpu_check: ${cmd[*]}"
  echo "# ${cmd[*]}" >"$log"
  start=$SECONDS
  timeout -k 30 "$bench_timeout" "${cmd[@]}" >>"$log" 2>&1
  rc=$?
  local detail="exit $rc, $((SECONDS - start)) s"
  [ $rc -eq 124 ] && detail+=", killed after ${bench_timeout} s"
  if [ $rc -eq 0 ]; then record PASS "bench $coll $kind" "$detail"; else record FAIL "bench $coll $kind" "$detail"; fi
  local last line
  if [ $rc -eq 0 ]; then
    last=$(max_size_ratio "$log")
  else
    last=$(grep -v '^#' "$log" | sed -n '1p;$p' | uniq)  # the first and last words of a failure
  fi
  while IFS= read -r line; do [ -n "$line" ] && summary+=("        $line"); done <<<"$last"
}

if ((run_bench)); then
  nccl=$(find_nccl)
  if [ -z "$nccl" ] || [ ! -e "$nccl" ]; then
    record FAIL nccl "no NCCL library (${nccl:-python3 nvidia.nccl not found}): benchmarks run without --compare nccl"
    nccl=''
  fi
  IFS=, read -r -a colls <<<"$bench_colls"
  for coll in "${colls[@]}"; do run_bench "$coll" check; run_bench "$coll"; done
  case ",$bench_colls," in *,allreduce,*) run_bench allreduce group; run_bench allreduce group_graph ;; esac
fi

{
  echo
  echo "== gpu_check summary (logs in $outdir) =="
  printf '%s\n' "${summary[@]}"
  if ((failed)); then echo "gpu_check: FAILED ($failed step(s) failed)"; else echo "gpu_check: all passed"; fi
} | tee "$outdir/summary.txt"
((failed == 0))

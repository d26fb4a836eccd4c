#!/usr/bin/env bash
# Instructions per message of the point-to-point hot path, repeatable on a
# busy machine (wall-clock timing is not). Rank RANK of
# `gpurun -n 2 gpurun-bench KIND` runs under callgrind, the other natively.
# What the measured rank executes is
#     iterations * WORK + idle polls * POLL
# where idle polls (progress rounds that found nothing, counted as calls of
# Backoff::Pause) depend on timing. Two runs separate the terms: one where the
# measured rank sleeps before each wait (-D 50: the message is mostly there
# already, few idle polls) and one where its peer does (-D 200: many idle
# polls); a line through the two gives WORK and POLL.
#   bench/p2p_callgrind.sh [latency|bw] [SIZE] [RANK]
# latency: WORK per iteration = one grSend + one grRecv; bw: per message =
# one grIsend or grIrecv + its share of grWaitall and of the ack. POLL is the
# cost of one idle progress round of a blocking wait. The hottest functions
# of the first run follow, by inclusive instructions per iteration. With
# P2P_CALLGRIND_KEEP=DIR the two profiles stay in DIR/few and DIR/many.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-latency}
size=${2:-8}
rank=${3:-0}
iters=20000
window=64
[ "$kind" = bw ] && iters=300
if [ -n "${P2P_CALLGRIND_KEEP:-}" ]; then  # keep the profiles (few, many) there, for callgrind_annotate
  out=$P2P_CALLGRIND_KEEP
  mkdir -p "$out"
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi

# run NAME MEASURED_ARGS PEER_ARGS: the measured rank's profile in $out/NAME.
run() {
  cat >"$out/wrap.sh" <<EOF
#!/usr/bin/env bash
if [ "\$GPURUN_RANK" = "$rank" ]; then
  exec valgrind -q --tool=callgrind --callgrind-out-file=$out/$1 "\$@" $2 2>/dev/null
fi
# The peer answers at once: it never backs off into sleeps.
GPURUN_PROGRESS_SPIN=100000000 exec "\$@" $3
EOF
  chmod +x "$out/wrap.sh"
  build/bin/gpurun -n 2 "$out/wrap.sh" build/bin/gpurun-bench "$kind" -b "$size" -e "$size" -n "$iters" -w 10 \
    -W "$window" >/dev/null
}
run few "-D 50" ""
run many "" "-D 200"

python3 - "$out" "$kind" "$size" "$rank" "$iters" "$window" <<'EOF'
import re, sys
out, kind, size, rank, iters, window = sys.argv[1:7]
per = (int(iters) + 10) * (int(window) if kind == 'bw' else 1)
top = 'RunLatency' if kind == 'latency' else 'RunBandwidth'

def parse(path):
    """Inclusive cost and call count per callee, summed over call sites."""
    names, incl, calls = {}, {}, {}
    cfn, pending = None, None
    for line in open(path):
        if line.startswith(('fn=', 'cfn=')):
            m = re.match(r'c?fn=\((\d+)\)(?: (.*))?', line.rstrip('\n'))
            if m.group(2): names[m.group(1)] = m.group(2)
            if line.startswith('cfn='): cfn = names[m.group(1)]
        elif line.startswith('calls='):
            pending = (cfn, int(line[6:].split()[0]))
        elif pending and line[:1] in '0123456789+-*':
            incl[pending[0]] = incl.get(pending[0], 0) + int(line.split()[1])
            calls[pending[0]] = calls.get(pending[0], 0) + pending[1]
            pending = None
    total = sum(v for k, v in incl.items() if top in k) / per
    idle = sum(v for k, v in calls.items() if 'Backoff::Pause' in k) / per
    return total, idle, incl, calls

t1, p1, incl, calls = parse(f'{out}/few')
t2, p2, _, _ = parse(f'{out}/many')
what = 'iteration (grSend + grRecv)' if kind == 'latency' else 'message'
if p2 - p1 > 1:
    poll = (t2 - t1) / (p2 - p1)
    work = t1 - p1 * poll
    print(f'{kind} {size} B rank {rank}: WORK {work:.0f} instructions per {what}, POLL {poll:.0f} per idle poll')
else:
    print(f'{kind} {size} B rank {rank}: {t1:.0f} instructions per {what} (idle polls did not vary; no split)')
print(f'  (runs: {t1:.0f} with {p1:.2f} idle polls, {t2:.0f} with {p2:.2f})')
for v, k in sorted(((v, k) for k, v in incl.items()), reverse=True):
    if v / per < 15: break
    if re.match(r'(gpurun::|gr[A-Z]|std::_Function|std::_Hash|malloc|free|operator new|pthread_mutex)', k):
        print(f'{v / per:9.0f} {calls[k] / per:7.2f}x  {k[:140]}')
EOF

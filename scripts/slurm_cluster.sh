#!/usr/bin/env bash
# A real Slurm cluster of simulated nodes on this one machine, for the
# multi-node tests: slurmctld plus K `slurmd -N nodeK` (default 4), each slurmd
# with its own port and its own mount namespace, in which a per-node folder is
# bind-mounted on the cluster's TmpFS (Slurm's PMIx plugin names its per-step
# folders after the job and step only, so two nodes of one host would share
# them) and a tmpfs of its own is mounted on /dev/shm (as on separate machines:
# Open MPI's shared-memory segments, for one, are named after the host name,
# the job and the local rank, so simulated nodes sharing /dev/shm overwrite
# each other's). A node's /dev/shm is seen from outside as
# /proc/<its slurmd pid>/root/dev/shm. Authentication is auth/none (no munge). Everything lives in
# one folder (default /tmp/gpurun-slurm, CLUSTER_DIR to change).
#
#   scripts/slurm_cluster.sh start [K]   install slurm-wlm if missing, start, wait until the K nodes are idle
#   scripts/slurm_cluster.sh stop        cancel jobs, end every process it started (by pid), remove the folder
#   scripts/slurm_cluster.sh status      the daemons and sinfo
#   scripts/slurm_cluster.sh run CMD...  run CMD against the cluster (SLURM_CONF set, UCX_NET_DEVICES=lo)
#   scripts/slurm_cluster.sh check       exit 0 if a cluster can start here, else print why and exit 1
#
# Ports: slurmctld on CLUSTER_PORT (default 17817), node k on that + k.
# CLUSTER_START_TIMEOUT (default 30 s) bounds the wait for idle nodes.
# Traffic stays on loopback: nodes are addressed as 127.0.0.1.
set -euo pipefail
caller_dir=$PWD # `run` runs its command from there
cd "$(dirname "$0")/.."

dir=${CLUSTER_DIR:-/tmp/gpurun-slurm}
base_port=${CLUSTER_PORT:-17817}
start_timeout=${CLUSTER_START_TIMEOUT:-30}
conf="$dir/etc/slurm.conf"

say() { echo "slurm_cluster: $*" >&2; }
die() {
  say "$*"
  exit 1
}

# ---- installation and preconditions ---------------------------------------------------------------------------------

install_slurm() {
  local missing=()
  for p in slurm-wlm slurm-wlm-basic-plugins libpmix2; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Why a cluster cannot start here (empty when it can).
cannot_start() {
  [ "$(id -u)" -eq 0 ] || {
    echo "needs root (slurmd runs as root and each node needs a mount namespace)"
    return
  }
  command -v unshare >/dev/null || {
    echo "no unshare (util-linux)"
    return
  }
  local probe
  probe=$(mktemp -d)
  if ! unshare --mount --propagation private sh -c 'mount --bind "$1" "$1" && mount -t tmpfs probe "$1"' sh "$probe" \
    2>/dev/null; then
    rmdir "$probe"
    echo "cannot create a mount namespace with a bind mount and a tmpfs here (unshare --mount: not permitted in this container?)"
    return
  fi
  rmdir "$probe"
}

# Whether something listens on 127.0.0.1:$1 (bash's /dev/tcp: no iproute2 needed).
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ---- configuration ------------------------------------------------------------------------------------------------------

write_conf() {
  local nodes=$1 host
  host=$(hostname -s) # Slurm compares SlurmctldHost with the short host name
  mkdir -p "$dir"/{etc,state,log,run,nodetmp}
  cat >"$conf" <<EOF
# Written by scripts/slurm_cluster.sh: $nodes simulated nodes on $host, loopback only.
ClusterName=gpurun
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base_port
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
TmpFS=$dir/nodetmp
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
KillWait=2
MessageTimeout=10
SlurmdTimeout=60
InactiveLimit=0
MinJobAge=10
EOF
  for k in $(seq 1 "$nodes"); do
    echo "NodeName=node$k NodeHostname=$host NodeAddr=127.0.0.1 Port=$((base_port + k)) CPUs=2 RealMemory=2000 State=UNKNOWN" >>"$conf"
  done
  echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES" >>"$conf"
}

# ---- daemons ----------------------------------------------------------------------------------------------------------

# Starts slurmd for node $1 in its own mount namespace; the pid (of slurmd
# itself: unshare and sh exec into it) goes to run/slurmd-NODE.started.
start_slurmd() {
  local node=$1
  mkdir -p "$dir/spool/$node" "$dir/tmp/$node"
  # shellcheck disable=SC2016 # $1..$4 are the inner sh's arguments
  setsid unshare --mount --propagation private sh -c \
    'mount --bind "$1" "$2" && mount -t tmpfs -o mode=1777 "shm-$3" /dev/shm && exec slurmd -D -N "$3" -f "$4"' \
    sh "$dir/tmp/$node" "$dir/nodetmp" "$node" "$conf" >"$dir/log/slurmd-$node.out" 2>&1 </dev/null &
  echo $! >"$dir/run/slurmd-$node.started"
}

start_slurmctld() {
  setsid slurmctld -D -i -f "$conf" >"$dir/log/slurmctld.out" 2>&1 </dev/null &
  echo $! >"$dir/run/slurmctld.started"
}

# Every pid this script started (from run/*.started).
started_pids() { cat "$dir"/run/*.started 2>/dev/null || true; }

# Mount namespaces of the nodes (recorded at start), to find the processes the
# slurmds started (slurmstepd, job tasks) once the slurmds are gone. A slurmd
# still in this script's namespace has not reached its unshare yet: wait (its
# namespace must never be taken for this one's, whose processes are not ours).
record_namespaces() {
  local f pid ns mine deadline=$((SECONDS + start_timeout))
  mine=$(readlink /proc/self/ns/mnt)
  for f in "$dir"/run/slurmd-*.started; do
    pid=$(cat "$f")
    while :; do
      ns=$(readlink "/proc/$pid/ns/mnt" 2>/dev/null) || die "$(basename "$f" .started) (pid $pid) exited at start-up: $(tail -n 5 "$dir/log/$(basename "$f" .started).out" 2>/dev/null)"
      [ "$ns" != "$mine" ] && break
      [ $SECONDS -lt $deadline ] || die "$(basename "$f" .started) (pid $pid) did not enter its own mount namespace within ${start_timeout}s"
      sleep 0.05
    done
    echo "$ns" >>"$dir/run/namespaces"
  done
}

# Pids of the processes living in the nodes' mount namespaces.
namespace_pids() {
  [ -s "$dir/run/namespaces" ] || return 0
  local mine
  mine=$(readlink /proc/self/ns/mnt)
  find /proc/[0-9]*/ns/mnt -maxdepth 0 -printf '%p %l\n' 2>/dev/null |
    awk -v mine="$mine" 'NR == FNR { ours[$0] = 1; next } $2 != mine && ($2 in ours) { split($1, part, "/"); print part[3] }' \
      "$dir/run/namespaces" - || true  # find fails on processes that ended while it ran
}

alive() { kill -0 "$1" 2>/dev/null; }

# Sends TERM to the given pids, waits up to $1 s, then KILLs what is left.
end_pids() {
  local wait_s=$1
  shift
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null || true
  local deadline=$((SECONDS + wait_s)) left
  while :; do
    left=()
    for p in "$@"; do alive "$p" && left+=("$p"); done
    [ ${#left[@]} -eq 0 ] && return 0
    [ $SECONDS -ge $deadline ] && break
    sleep 0.1
  done
  say "still running after ${wait_s}s, killing: ${left[*]}"
  kill -KILL "${left[@]}" 2>/dev/null || true
}

# Waits until every node is idle; on timeout says what sinfo shows and where the logs are.
wait_idle() {
  local nodes=$1 deadline=$((SECONDS + start_timeout)) idle states
  while :; do
    states=$(SLURM_CONF=$conf sinfo -h -N -o '%N %t' 2>/dev/null || true)
    idle=$(grep -c ' idle$' <<<"$states" || true)
    [ "$idle" -eq "$nodes" ] && return 0
    for f in "$dir"/run/*.started; do
      alive "$(cat "$f")" || die "$(basename "$f" .started) exited during start-up; its log:
$(tail -n 20 "$dir/log/$(basename "$f" .started).log" "$dir/log/$(basename "$f" .started).out" 2>/dev/null)"
    done
    if [ $SECONDS -ge $deadline ]; then
      die "timed out after ${start_timeout}s waiting for $nodes idle nodes (CLUSTER_START_TIMEOUT); sinfo says:
${states:-(no answer from slurmctld on port $base_port)}
logs: $dir/log (run: scripts/slurm_cluster.sh stop)"
    fi
    sleep 0.1
  done
}

# ---- subcommands --------------------------------------------------------------------------------------------------------

cmd_start() {
  local nodes=${1:-4}
  [[ "$nodes" =~ ^[1-9][0-9]*$ ]] || die "start: the number of nodes must be a positive integer, not '$nodes'"
  [ -e "$dir/run/slurmctld.started" ] && die "a cluster already runs from $dir (scripts/slurm_cluster.sh stop first)"
  local why
  why=$(cannot_start)
  [ -z "$why" ] || die "cannot start a cluster: $why"
  install_slurm
  for p in $(seq "$base_port" $((base_port + nodes))); do
    port_in_use "$p" && die "port $p is taken (another cluster?); set CLUSTER_PORT to a free range"
  done
  rm -rf "$dir"
  write_conf "$nodes"
  local t0=$SECONDS
  trap 'say "start failed: ending what it started"; cmd_stop >/dev/null 2>&1' EXIT
  start_slurmctld
  for k in $(seq 1 "$nodes"); do start_slurmd "node$k"; done
  record_namespaces
  wait_idle "$nodes"
  trap - EXIT
  say "$nodes nodes idle after $((SECONDS - t0))s (SLURM_CONF=$conf)"
}

cmd_stop() {
  [ -d "$dir" ] || {
    say "no cluster in $dir"
    return 0
  }
  if [ -e "$dir/run/slurmctld.started" ] && alive "$(cat "$dir/run/slurmctld.started")"; then
    SLURM_CONF=$conf timeout 10 scancel --quiet --state=PENDING,RUNNING,SUSPENDED 2>/dev/null || true
    local deadline=$((SECONDS + 10))
    while [ -n "$(SLURM_CONF=$conf timeout 5 squeue -h -o %i 2>/dev/null)" ]; do
      [ $SECONDS -ge $deadline ] && {
        say "jobs still listed after 10 s of scancel; ending the daemons anyway"
        break
      }
      sleep 0.2
    done
  fi
  # Job steps end a few seconds after their tasks (KillWait): let them, then end the daemons.
  local pids deadline=$((SECONDS + 15))
  # shellcheck disable=SC2143 # grep -q could end the pipe early, which pipefail would take for "none left"
  while [ -n "$(namespace_pids | grep -vxF -f <(started_pids))" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  mapfile -t pids < <(started_pids)
  end_pids 10 "${pids[@]}"
  mapfile -t pids < <(namespace_pids)
  [ ${#pids[@]} -eq 0 ] || say "ending ${#pids[@]} leftover processes of the nodes: ${pids[*]}"
  end_pids 5 "${pids[@]}"
  rm -rf "$dir"
  say "stopped; $dir removed"
}

cmd_status() {
  [ -d "$dir/run" ] || die "no cluster in $dir"
  for f in "$dir"/run/*.started; do
    local pid
    pid=$(cat "$f")
    echo "$(basename "$f" .started): pid $pid $(alive "$pid" && echo running || echo GONE)"
  done
  SLURM_CONF=$conf sinfo -N
}

cmd_run() {
  [ -f "$conf" ] || die "no cluster in $dir (scripts/slurm_cluster.sh start first)"
  [ $# -gt 0 ] || die "run: no command given"
  cd "$caller_dir"
  SLURM_CONF=$conf UCX_NET_DEVICES=${UCX_NET_DEVICES:-lo} "$@"
}

case "${1:-}" in
  start) cmd_start "${2:-4}" ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  run)
    shift
    cmd_run "$@"
    ;;
  check)
    why=$(cannot_start)
    [ -z "$why" ] || die "$why"
    ;;
  *) die "usage: scripts/slurm_cluster.sh start [K] | stop | status | run CMD... | check" ;;
esac

#!/usr/bin/env bash
# slurm-local.sh start|stop|status — a one-node Slurm on this machine, from
# Debian's packages (slurm-wlm 22.05 + munge), for lockstep's sweep tests:
# one node, two partitions on it (cpu-a, cpu-b) standing in for two
# machine types.  Settings measured to work here (../shared/TOOLCHAIN.md):
# SlurmUser=root, proctrack/linuxproc, task/none, select/cons_tres, no
# cgroup.conf, no slurmdbd (squeue/scontrol; jobcomp/filetxt for a record
# of finished jobs).
#
# Everything lives in $SLURM_LOCAL_DIR (default build/slurm-local under the
# repository): slurm.conf, state, logs, and the pid files by which `stop`
# ends the daemons it started — never by name (other Slurms or munges on
# the machine are not ours).  munged is started only when none answers;
# then it runs with its own socket and pid file in that folder.
#
# The clients find this cluster through SLURM_CONF: `start` prints
#   export SLURM_CONF=.../slurm.conf
# (eval "$(scripts/slurm-local.sh env)" sets it in a shell).
#
# Exit status: 0 up (start, status) or stopped (stop); 1 not up; 2 could
# not start (the reason on stderr: no root, packages missing, slurmd
# refused).
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
D=${SLURM_LOCAL_DIR:-$here/build/slurm-local}
CONF=$D/slurm.conf
NODE=$(hostname -s)
WAIT=${SLURM_LOCAL_WAIT:-30}

die() { echo "slurm-local: $*" >&2; exit 2; }

pid_alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

install_pkgs() {
    command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null && return 0
    [ "$(id -u)" -eq 0 ] || die "slurm-wlm and munge are not installed and this is not root (apt-get install slurm-wlm munge)"
    echo "slurm-local: installing slurm-wlm munge" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >&2 ||
        { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >&2; } ||
        die "apt-get install slurm-wlm munge failed"
}

write_conf() {
    local cpus mem
    cpus=$(nproc)
    # RealMemory below what the node has, or slurmd drains it
    mem=$(awk '/MemTotal/ {printf "%d", $2 / 1024 * 0.8}' /proc/meminfo)
    mkdir -p "$D/state" "$D/spool" "$D/log"
    cat > "$CONF.tmp" <<EOF
# written by scripts/slurm-local.sh: a one-node cluster for tests
ClusterName=lockstep-local
SlurmctldHost=$NODE
SlurmUser=root
SlurmdUser=root
SlurmctldPort=${SLURM_LOCAL_PORT:-6817}
SlurmdPort=$(( ${SLURM_LOCAL_PORT:-6817} + 1 ))
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$D/log/jobcomp.txt
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
MinJobAge=300
KillWait=5
InactiveLimit=0
SlurmdTimeout=60
NodeName=$NODE CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=cpu-a Nodes=$NODE Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
PartitionName=cpu-b Nodes=$NODE MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
    mv "$CONF.tmp" "$CONF"
}

start_munge() {
    # a munged that answers (the system's, or ours from an earlier start) will do
    if munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then return 0; fi
    if [ ! -s /etc/munge/munge.key ]; then
        [ "$(id -u)" -eq 0 ] || die "no /etc/munge/munge.key and not root"
        mungekey -c >/dev/null 2>&1 || mungekey --create >/dev/null 2>&1 || die "mungekey -c failed"
        chown munge:munge /etc/munge/munge.key 2>/dev/null || true
    fi
    mkdir -p /run/munge
    chown munge:munge /run/munge 2>/dev/null || true
    # --force: start although a stale socket from a dead munged is left
    munged --force --pid-file="$D/munged.pid" >"$D/log/munged.out" 2>&1 || true
    for _ in $(seq 1 20); do
        munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 && return 0
        sleep 0.25
    done
    die "munged does not answer (see $D/log/munged.out)"
}

node_idle() { SLURM_CONF=$CONF sinfo -h -n "$NODE" -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; }

cmd_start() {
    install_pkgs
    mkdir -p "$D/log"
    if pid_alive "$D/slurmctld.pid" && pid_alive "$D/slurmd.pid" && node_idle; then
        echo "export SLURM_CONF=$CONF"
        return 0
    fi
    write_conf
    start_munge
    pid_alive "$D/slurmctld.pid" || slurmctld -f "$CONF" >"$D/log/slurmctld.out" 2>&1 ||
        die "slurmctld did not start (see $D/log/slurmctld.log)"
    pid_alive "$D/slurmd.pid" || slurmd -f "$CONF" >"$D/log/slurmd.out" 2>&1 ||
        die "slurmd did not start: $(tail -3 "$D/log/slurmd.log" 2>/dev/null | tr '\n' ' ')"
    local t=0
    until node_idle; do
        t=$((t + 1))
        if [ "$t" -gt $((WAIT * 4)) ]; then
            die "node $NODE not idle after ${WAIT}s: $(SLURM_CONF=$CONF sinfo -h -o '%t %E' 2>&1 | head -2 | tr '\n' ' ') (logs: $D/log)"
        fi
        sleep 0.25
    done
    echo "export SLURM_CONF=$CONF"
}

stop_one() {
    local f=$1
    if pid_alive "$f"; then
        local p
        p=$(cat "$f")
        kill "$p" 2>/dev/null
        for _ in $(seq 1 40); do kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
        kill -0 "$p" 2>/dev/null && kill -9 "$p" 2>/dev/null
    fi
    rm -f "$f"
}

cmd_stop() {
    # jobs first, so that no task outlives the cluster that ran it
    if pid_alive "$D/slurmctld.pid"; then SLURM_CONF=$CONF scancel --full --quiet -u "$(id -un)" 2>/dev/null || true; fi
    stop_one "$D/slurmd.pid"
    stop_one "$D/slurmctld.pid"
    stop_one "$D/munged.pid"
    return 0
}

cmd_status() {
    if pid_alive "$D/slurmctld.pid" && pid_alive "$D/slurmd.pid" && node_idle; then
        SLURM_CONF=$CONF sinfo
        return 0
    fi
    echo "slurm-local: not up (pid files in $D)" >&2
    return 1
}

case "${1:-}" in
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
env) echo "export SLURM_CONF=$CONF" ;;
*) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac

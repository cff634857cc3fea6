#!/usr/bin/env bash
# Runs a command on a slower machine than this one: the command, everything it starts, and the
# local PostgreSQL and Redis servers (already running) are held together to CPUS cores' worth of
# processor time by a CPU cgroup (v1 or v2; needs root). Used to measure the webhooks benchmark on
# "a machine about a third as fast" (issue 36, bench/README.md) where no such machine is at hand.
#
#   bench/tools/cpu-limit.sh <cpus> -- <command> [args...]
#   bench/tools/cpu-limit.sh 0.95 -- node bench/run.js --only webhooks
#
# The quota is spread over 10 ms periods (a throttled process waits at most that long). The
# servers are moved back to the root group when the command ends. Calibrate with
# `--only gateway-bots` (its baseline req/s) or the webhooks reference pipeline's figures.
set -euo pipefail

if [ $# -lt 3 ] || [ "$2" != "--" ]; then
  echo "usage: $0 <cpus> -- <command> [args...]" >&2
  exit 2
fi
cpus="$1"
shift 2
period=10000
quota=$(awk -v c="$cpus" 'BEGIN { q = int(c * 10000); if (q < 1000) q = 1000; print q }')
name="sa-bench-cpu-limit-$$"
acct_root=""
acct_group=""

if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  root=/sys/fs/cgroup
  group="$root/$name"
  echo +cpu > "$root/cgroup.subtree_control" 2> /dev/null || true
  mkdir "$group"
  echo "$quota $period" > "$group/cpu.max"
elif [ -f /sys/fs/cgroup/cpu/cgroup.procs ]; then
  root=/sys/fs/cgroup/cpu
  group="$root/$name"
  mkdir "$group"
  echo "$period" > "$group/cpu.cfs_period_us"
  echo "$quota" > "$group/cpu.cfs_quota_us"
  # v1 keeps CPU accounting in its own hierarchy where cpuacct is mounted apart: a group there too,
  # so that the benchmark can read what the group used (bench/lib/cpu-meter.js).
  if [ -f /sys/fs/cgroup/cpuacct/cpuacct.usage ] && [ ! /sys/fs/cgroup/cpuacct -ef /sys/fs/cgroup/cpu ]; then
    acct_root=/sys/fs/cgroup/cpuacct
    acct_group="$acct_root/$name"
    mkdir "$acct_group"
  fi
else
  echo "$0: no CPU cgroup controller found under /sys/fs/cgroup" >&2
  exit 2
fi

restore() {
  # Back to the root group (the servers outlive the command), then the group can go.
  for pid in $(cat "$group/cgroup.procs" 2> /dev/null); do echo "$pid" > "$root/cgroup.procs" 2> /dev/null || true; done
  rmdir "$group" 2> /dev/null || true
  if [ -n "$acct_group" ]; then
    for pid in $(cat "$acct_group/cgroup.procs" 2> /dev/null); do echo "$pid" > "$acct_root/cgroup.procs" 2> /dev/null || true; done
    rmdir "$acct_group" 2> /dev/null || true
  fi
}
trap restore EXIT

servers=$( (pgrep -x postgres; pgrep -x redis-server) || true)
for pid in $servers; do
  echo "$pid" > "$group/cgroup.procs"
  if [ -n "$acct_group" ]; then echo "$pid" > "$acct_group/cgroup.procs"; fi
done
echo "cpu-limit: ${cpus} CPU for '$*' and $(echo $servers | wc -w) server processes (cgroup $group)" >&2

status=0
sh -c 'echo $$ > "$1/cgroup.procs"; if [ -n "$2" ]; then echo $$ > "$2/cgroup.procs"; fi; shift 2; exec "$@"' cpu-limit "$group" "$acct_group" "$@" || status=$?
exit "$status"

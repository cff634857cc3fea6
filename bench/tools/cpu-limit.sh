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
else
  echo "$0: no CPU cgroup controller found under /sys/fs/cgroup" >&2
  exit 2
fi

restore() {
  # Back to the root group (the servers outlive the command), then the group can go.
  for pid in $(cat "$group/cgroup.procs" 2> /dev/null); do echo "$pid" > "$root/cgroup.procs" 2> /dev/null || true; done
  rmdir "$group" 2> /dev/null || true
}
trap restore EXIT

servers=$( (pgrep -x postgres; pgrep -x redis-server) || true)
for pid in $servers; do echo "$pid" > "$group/cgroup.procs"; done
echo "cpu-limit: ${cpus} CPU for '$*' and $(echo $servers | wc -w) server processes (cgroup $group)" >&2

status=0
sh -c 'echo $$ > "$1/cgroup.procs"; shift; exec "$@"' cpu-limit "$group" "$@" || status=$?
exit "$status"

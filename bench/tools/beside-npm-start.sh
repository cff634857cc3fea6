#!/usr/bin/env bash
# Checks that a benchmark runs while a system started with `npm start` holds the default ports
# (3000-3002 and the ops ports 9464-9472): starts `npm start` on a fresh database of its own,
# waits for "[launcher] ready", runs `node bench/run.js --smoke --only <benchmark>` (default
# gateway-bots), then stops npm start with Ctrl-C (SIGINT to its process group).
#
#   bash bench/tools/beside-npm-start.sh [benchmark]
#
# Exits with the benchmark's exit code (or 1 when npm start does not become ready in 120 s).
set -uo pipefail
cd "$(dirname "$0")/../.."
only="${1:-gateway-bots}"
db="sa_beside_$(date +%s)"
log="$(mktemp)"
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db"

setsid node tools/launcher/start.js >"$log" 2>&1 &
launcher=$!
cleanup() {
  kill -INT -- "-$launcher" 2>/dev/null
  for _ in $(seq 1 60); do kill -0 "$launcher" 2>/dev/null || break; sleep 0.5; done
  kill -KILL -- "-$launcher" 2>/dev/null
  psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1
  rm -f "$log"
}
trap cleanup EXIT

for _ in $(seq 1 240); do grep -q '\[launcher\] ready' "$log" && break; kill -0 "$launcher" 2>/dev/null || break; sleep 0.5; done
if ! grep -q '\[launcher\] ready' "$log"; then
  echo "[beside] npm start did not become ready:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
echo "[beside] npm start is running: $(grep -o 'Ops endpoints:.*' "$log" | head -n 1)"
started=$(date +%s)
node bench/run.js --smoke --only "$only"
code=$?
echo "[beside] node bench/run.js --smoke --only $only: exit $code in $(($(date +%s) - started)) s, beside npm start (still running: $(kill -0 "$launcher" 2>/dev/null && echo yes || echo no))"
exit "$code"

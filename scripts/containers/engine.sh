#!/usr/bin/env bash
# Starts or stops a Docker engine for CI and the container tests.
#   engine.sh start   starts dockerd in the background when none answers, waits for it (bounded)
#                     and prints its pid (nothing when an engine was already running)
#   engine.sh stop PID  stops that dockerd (TERM, then KILL after a bounded wait)
set -euo pipefail
log_file=${DOCKERD_LOG:-/tmp/ledger-fleet-exporter-dockerd.log}
wait_s=${DOCKERD_WAIT_SECONDS:-60}

answers() { docker info >/dev/null 2>&1; }

case "${1:-}" in
  start)
    answers && exit 0
    command -v dockerd >/dev/null || { echo "engine.sh: dockerd is not installed (apt-get install docker.io)" >&2; exit 1; }
    setsid dockerd >"$log_file" 2>&1 </dev/null &
    pid=$!
    for _ in $(seq 1 "$wait_s"); do
      if answers; then echo "$pid"; exit 0; fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
    echo "engine.sh: dockerd did not answer within ${wait_s} s; its log ends with:" >&2
    tail -n 20 "$log_file" >&2 || true
    kill "$pid" 2>/dev/null || true
    exit 1
    ;;
  stop)
    pid=${2:?usage: engine.sh stop PID}
    kill -TERM "$pid" 2>/dev/null || exit 0
    # dockerd stops its containers first (10 s each at most), so give it a little longer.
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || exit 0; sleep 1; done
    kill -KILL "$pid" 2>/dev/null || true
    ;;
  *)
    echo "usage: engine.sh start | stop PID" >&2
    exit 2
    ;;
esac

#!/usr/bin/env bash
# Resident memory of one gateway under load: idle, at the end and at its peak (VmRSS, VmHWM), for a
# JVM flag set, so flag sets and engines can be compared for memory (issue 33's goal 4). The load is
# the bench config's (bench-lib.sh): wrk -t2 -c100 for SECONDS on /compose, then /16k, then /compose.
# The read-ahead budget is set (32 MB) rather than derived from the heap, so a small -Xmx does not
# also shrink what compositions may hold. Memory only: on a busy machine the req/s printed are not
# comparisons (use interleave.sh for speed).
#
# usage: rss.sh JAR ENGINE SECONDS [JVM FLAGS...]   e.g. rss.sh sluice-app/target/sluice.jar reactive 10 -Xmx32m
# Ports: 18781 (gateway), 19381.. (the demo upstreams), 18390 (nginx). Loopback only, bounded in time.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=sluice-lab/bench/bench-lib.sh
source "$ROOT/sluice-lab/bench/bench-lib.sh"
[[ $# -ge 3 ]] || { sed -n '2,10p' "$0" >&2; exit 2; }
JAR=$1 ENGINE=$2 SECS=$3
shift 3
bench_need rss nginx nginx
bench_need rss wrk wrk
JDK=$(bench_jdk25) || { echo "rss: no JDK 25 found (set JAVA_HOME)" >&2; exit 1; }
JAVA=$JDK/bin/java
WORK=$(mktemp -d)
bench_upstreams "$WORK" "$JAVA" "$JAR" 19381 18390
bench_gateway_yaml "$WORK/gw.yaml" 18781 19381 18390
sed -i 's/^server: { host: 127.0.0.1, port: 18781 }/server: { host: 127.0.0.1, port: 18781, limits: { max-read-ahead: 32MB } }/' "$WORK/gw.yaml"
"$JAVA" "$@" -jar "$JAR" run -c "$WORK/gw.yaml" --engine "$ENGINE" >"$WORK/gw.log" 2>&1 &
GW=$!
BENCH_PIDS+=("$GW")
bench_wait_ready rss http://127.0.0.1:18781/16k "$GW" "$WORK/gw.log"
mb() { awk -v k="$1" '$1 == k":" { print int($2 / 1024) }' "/proc/$GW/status"; }
rate() { wrk -t2 -c100 -d"${SECS}s" "http://127.0.0.1:18781$1" | awk '/Requests\/sec/ { print int($2) }'; }
idle=$(mb VmRSS)
r1=$(rate /compose)
r2=$(rate /16k)
r3=$(rate /compose)
echo "$ENGINE idle=${idle}MB end=$(mb VmRSS)MB peak=$(mb VmHWM)MB /compose=$r1,$r3 /16k=$r2 req/s; flags: $*"

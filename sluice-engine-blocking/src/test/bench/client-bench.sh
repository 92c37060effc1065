#!/usr/bin/env bash
# Measures the blocking engine's GET /compose (three upstream parts) with each upstream client:
# Apache HttpClient 5 (the default), the JDK HttpClient and the Jetty 12 client.
#
# For each client: starts ClientBench (the gateway in-process) on its own JVM, warms up with wrk,
# measures with wrk, and reads the gateway's CPU time (/proc/PID/stat utime+stime, before/after the
# measurement) and resident memory (VmRSS after it, VmHWM = peak). One line per client.
#
# Upstreams: the demo upstreams (java -jar sluice-app/target/sluice.jar upstreams, ports BASE to
# BASE+5) when that jar exists and --stand-in is not given, otherwise StandInUpstreams, a STAND-IN
# serving fixed 16/5/7 KB JSON bodies at once (ports BASE to BASE+2).
#
# BENCH_JAVA_OPTS: JVM flags for the gateway (default: none, the JVM's defaults).
#
# usage: client-bench.sh [--mode virtual|platform] [--clients "http1 apache jdk jetty"] [--threads 2]
#                        [--connections 100] [--warmup 10s] [--duration 20s] [--port 18480]
#                        [--upstream-port-base 19081] [--stand-in] [--no-build]
set -euo pipefail

MODE=virtual
CLIENTS="http1 apache jdk jetty"
THREADS=2
CONNECTIONS=100
WARMUP=10s
DURATION=20s
PORT=18480
BASE=19081
BUILD=1
STAND_IN=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mode) MODE=$2; shift 2 ;;
    --clients) CLIENTS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --connections) CONNECTIONS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --upstream-port-base) BASE=$2; shift 2 ;;
    --stand-in) STAND_IN=1; shift ;;
    --no-build) BUILD=0; shift ;;
    *) echo "client-bench: unknown option '$1' (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done

ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)       # the repository root
MODULE=$ROOT/sluice-engine-blocking
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
JAVA=$JAVA_HOME/bin/java
WORK=$(mktemp -d /tmp/client-bench.XXXXXX)
PIDS=()

cleanup() {
  exec 3>&- 2>/dev/null || true
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
}
trap cleanup EXIT

port_free() { ! (exec 9<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }

for p in "$PORT" $(seq "$BASE" $((BASE + 5))); do
  port_free "$p" || { echo "client-bench: port $p is in use (choose --port / --upstream-port-base)" >&2; exit 1; }
done

cd "$ROOT"
if [[ $BUILD == 1 ]]; then
  ./mvnw -q -B -pl sluice-engine-blocking test-compile
fi
./mvnw -q -B -pl sluice-engine-blocking dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$WORK/classpath.txt" >/dev/null
CP="$MODULE/target/test-classes:$MODULE/target/classes:$(cat "$WORK/classpath.txt")"

# Waits until file $1 has a line starting with "READY", for at most $2 seconds.
await_ready() {
  for _ in $(seq 1 $(($2 * 10))); do
    grep -q '^READY' "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "client-bench: no READY in $1 after $2 s:" >&2
  cat "$1" >&2
  return 1
}

JAR=$ROOT/sluice-app/target/sluice.jar
if [[ -f $JAR && $STAND_IN == 0 ]]; then
  UPSTREAMS="demo upstreams ($JAR)"
  "$JAVA" -jar "$JAR" upstreams --host 127.0.0.1 --port-base "$BASE" >"$WORK/upstreams.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do
    curl -sf -o /dev/null "http://127.0.0.1:$((BASE + 2))/health" && break
    sleep 0.1
  done
else
  UPSTREAMS="STAND-IN upstreams (not the demo's): fixed 16/5/7 KB JSON, no latency"
  mkfifo "$WORK/upstreams.in"
  "$JAVA" -cp "$CP" dev.sluice.engine.blocking.bench.StandInUpstreams "$BASE" <"$WORK/upstreams.in" >"$WORK/upstreams.log" 2>&1 &
  PIDS+=($!)
  exec 4>"$WORK/upstreams.in"
  await_ready "$WORK/upstreams.log" 30
fi
URLS=("http://127.0.0.1:$BASE/products" "http://127.0.0.1:$((BASE + 1))/customers/42" "http://127.0.0.1:$((BASE + 2))/reviews")
for url in "${URLS[@]}"; do
  curl -sf -o /dev/null "$url" || { echo "client-bench: upstream $url does not answer" >&2; exit 1; }
done

# wrk's latency ("1.23ms", "850.00us", "1.02s") in milliseconds.
to_ms() {
  awk -v v="$1" 'BEGIN {
    n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
    if (u == "us") n /= 1000; else if (u == "s") n *= 1000; else if (u == "m") n *= 60000
    printf "%.2f", n }'
}
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

# A composition answers 200 even when parts fail (they are null): check that none did.
check_whole() {
  local body
  body=$(curl -sf "$2") || { echo "client-bench: $1: $2 does not answer 200" >&2; exit 1; }
  [[ $body == *'"failed":[]'* ]] || { echo "client-bench: $1: parts failed: ${body: -400}" >&2; exit 1; }
}

TICK=$(getconf CLK_TCK)
echo "client-bench: mode=$MODE wrk -t$THREADS -c$CONNECTIONS warmup=$WARMUP measure=$DURATION on /compose; $UPSTREAMS"
for client in $CLIENTS; do
  log=$WORK/gateway-$client.log
  mkfifo "$WORK/gateway-$client.in"
  "$JAVA" ${BENCH_JAVA_OPTS:-} -cp "$CP" dev.sluice.engine.blocking.bench.ClientBench "$client" "$MODE" "$PORT" "${URLS[@]}" \
    <"$WORK/gateway-$client.in" >"$log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  exec 3>"$WORK/gateway-$client.in"           # ClientBench runs until this closes
  await_ready "$log" 60
  url="http://127.0.0.1:$PORT/compose"
  check_whole "$client" "$url"

  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "$url" >"$WORK/warmup-$client.txt"
  before=$(cpu_ticks "$pid")
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$url" >"$WORK/wrk-$client.txt"
  after=$(cpu_ticks "$pid")
  rss_kb=$(status_kb "$pid" VmRSS)
  hwm_kb=$(status_kb "$pid" VmHWM)
  check_whole "$client" "$url"

  out=$WORK/wrk-$client.txt
  rps=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
  requests=$(awk '/ requests in / { print $1 }' "$out")
  mean=$(to_ms "$(awk '$1 == "Latency" && NF > 3 { print $2; exit }' "$out")")
  p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$out")")
  bad=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$out")
  errors=$(awk '/Socket errors:/ { sub(/^.*Socket errors: /, ""); print }' "$out")
  cpu_ms_per_req=$(awk -v t=$((after - before)) -v hz="$TICK" -v n="$requests" 'BEGIN { printf "%.3f", (n > 0 ? t * 1000 / hz / n : 0) }')
  printf '%-7s %-8s req/s=%-9s mean=%-8s p99=%-8s cpu/req=%-7s rss=%sMB peak=%sMB non2xx=%s%s\n' \
    "$client" "$MODE" "$rps" "${mean}ms" "${p99}ms" "${cpu_ms_per_req}ms" $((rss_kb / 1024)) $((hwm_kb / 1024)) \
    "${bad:-0}" "${errors:+ socket-errors=($errors)}"

  exec 3>&-                                    # end of input: ClientBench closes the gateway
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
done
echo "client-bench: logs and raw wrk output in $WORK"

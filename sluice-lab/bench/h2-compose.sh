#!/usr/bin/env bash
# h2-compose.sh: HTTP/2 at the listener against HTTP/1.1 (#19's figure). One gateway per engine mode,
# warm, is driven in alternating runs by
#   h2     h2load -c10 -m10: 100 streams in flight on 10 h2c connections (prior knowledge)
#   h1     h2load --h1 -c100: 100 HTTP/1.1 connections, one request each at a time (same tool)
#   wrk    wrk -t2 -c100: 100 HTTP/1.1 connections, the tool of the lab's other tables
# on each path (the demo's /compose, three APIs composed, and /16k proxied from nginx), so the drift
# of a shared machine falls on every client alike. Every stream is translated to an HTTP/1.1 call
# upstream. Prints each run (req/s, the gateway's CPU per request from /proc/PID/stat, failures)
# and the means over the rounds after the first --skip.
#
#   bash sluice-lab/bench/h2-compose.sh [--jar sluice-app/target/sluice.jar] [--engines "reactive virtual platform"]
#        [--paths "/compose /16k"] [--rounds 4] [--seconds 10] [--warmup 20] [--skip 1]
#        [--port 18481] [--upstream-port-base 19081] [--nginx-port 18090]
#
# Installs nghttp2-client (h2load), wrk and nginx from Debian when missing (as root). Loopback only,
# bounded in time.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=bench-lib.sh
source "$ROOT/sluice-lab/bench/bench-lib.sh"

JAR=$ROOT/sluice-app/target/sluice.jar
ENGINES="reactive virtual platform"
PATHS="/compose /16k"
ROUNDS=4
SECONDS_=10
WARMUP=20
SKIP=1
PORT=18481
BASE=19081
NGINX_PORT=18090
while [[ $# -gt 0 ]]; do
  case $1 in
    --jar) JAR=$2; shift 2 ;;
    --engines) ENGINES=$2; shift 2 ;;
    --paths) PATHS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --seconds) SECONDS_=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --skip) SKIP=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --upstream-port-base) BASE=$2; shift 2 ;;
    --nginx-port) NGINX_PORT=$2; shift 2 ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
[[ -f $JAR ]] || { echo "h2-compose: $JAR is missing (./mvnw -q install -DskipTests)" >&2; exit 1; }
JDK=$(bench_jdk25) || { echo "h2-compose: no JDK 25 found (JAVA_HOME or /usr/lib/jvm)" >&2; exit 1; }
JAVA=$JDK/bin/java
bench_need h2-compose h2load nghttp2-client
bench_need h2-compose wrk wrk
bench_need h2-compose nginx nginx
export PATH=$PATH:/usr/sbin
# shellcheck source=/dev/null
source <(sed -n 's/^\(DEFAULT_JAVA_OPTS=.*\)$/\1/p' "$ROOT/sluice")

WORK=$(mktemp -d /tmp/h2-compose.XXXXXX)
cp "$JAR" "$WORK/sluice.jar"
bench_upstreams "$WORK" "$JAVA" "$WORK/sluice.jar" "$BASE" "$NGINX_PORT"
bench_gateway_yaml "$WORK/gateway.yaml" "$PORT" "$BASE" "$NGINX_PORT" # server.http2 is on by default

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TICK=$(getconf CLK_TCK)

# run CLIENT URL SECONDS: prints "<req/s> <requests> <failures>" of one run
run() {
  local out
  case $1 in
    h2) out=$(h2load -c10 -m10 -t2 -D "$3" "$2" || true) # its status is not 0 when a request failed
        awk '/^finished in/ { r = $4 } /^requests:/ { n = $8; f = $10 + $12 + $14 }
             /^status codes:/ { f += $7 + $9 } END { printf "%s %d %d\n", r, n, f }' <<<"$out" ;;
    h1) out=$(h2load --h1 -c100 -m1 -t2 -D "$3" "$2" || true)
        awk '/^finished in/ { r = $4 } /^requests:/ { n = $8; f = $10 + $12 + $14 }
             /^status codes:/ { f += $7 + $9 } END { printf "%s %d %d\n", r, n, f }' <<<"$out" ;;
    wrk) out=$(wrk -t2 -c100 -d"${3}s" "$2" || true)
        local bad
        bad=$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' <<<"$out")
        awk -v bad="${bad:-0}" '/Requests\/sec/ { r = $2 } /requests in/ { n = $1 }
             /Socket errors/ { gsub(/,/, ""); bad += $4 + $6 + $8 + $10 } END { printf "%s %d %d\n", r, n, bad }' <<<"$out" ;;
  esac
}

declare -A RATES CPUS FAILS
echo "h2-compose: ${ROUNDS} rounds of ${SECONDS_}s per client and path, warm-up ${WARMUP}s; flags: $DEFAULT_JAVA_OPTS; $(nproc) CPUs; work files in $WORK"
for engine in $ENGINES; do
  # shellcheck disable=SC2086 # DEFAULT_JAVA_OPTS is a list of flags
  "$JAVA" $DEFAULT_JAVA_OPTS -jar "$WORK/sluice.jar" run -c "$WORK/gateway.yaml" --engine "$engine" >"$WORK/$engine.log" 2>&1 &
  pid=$!
  BENCH_PIDS+=("$pid")
  bench_wait_ready h2-compose "http://127.0.0.1:$PORT/compose" "$pid" "$WORK/$engine.log"
  head -1 "$WORK/$engine.log" | grep -o '(engine [^)]*)\|engine [a-z]* on [a-z_]*' | sed "s/^/  $engine: /" || true
  for p in $PATHS; do
    for client in h2 h1 wrk; do run "$client" "http://127.0.0.1:$PORT$p" "$WARMUP" >/dev/null; done
  done
  for r in $(seq 1 "$ROUNDS"); do
    for p in $PATHS; do
      for client in $(printf '%s\n' h2 h1 wrk | shuf); do
        c0=$(cpu_ticks "$pid")
        read -r rate count failed < <(run "$client" "http://127.0.0.1:$PORT$p" "$SECONDS_")
        c1=$(cpu_ticks "$pid")
        ms=$(awk -v c=$((c1 - c0)) -v n="$count" -v t="$TICK" 'BEGIN { printf "%.3f", n ? c * 1000 / t / n : 0 }')
        printf 'round %d  %-9s %-9s %-4s %10s req/s  gateway CPU %s ms/request  failed %s\n' \
          "$r" "$engine" "$p" "$client" "$rate" "$ms" "$failed"
        if [[ $r -gt $SKIP ]]; then
          RATES[$engine$p$client]="${RATES[$engine$p$client]:-} $rate"
          CPUS[$engine$p$client]="${CPUS[$engine$p$client]:-} $ms"
          FAILS[$engine$p$client]=$(( ${FAILS[$engine$p$client]:-0} + failed ))
        fi
      done
    done
  done
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
echo "means over rounds $((SKIP + 1))-$ROUNDS (h2: h2load -c10 -m10; h1: h2load --h1 -c100; wrk: wrk -t2 -c100):"
for engine in $ENGINES; do
  for p in $PATHS; do
    for client in h2 h1 wrk; do
      mean=$(tr ' ' '\n' <<<"${RATES[$engine$p$client]}" | awk 'NF { s += $1; n++ } END { printf "%.0f", s / n }')
      cpu=$(tr ' ' '\n' <<<"${CPUS[$engine$p$client]}" | awk 'NF { s += $1; n++ } END { printf "%.3f", s / n }')
      printf '  %-9s %-9s %-4s %8s req/s  gateway CPU %s ms/request  failed %s  (runs:%s)\n' \
        "$engine" "$p" "$client" "$mean" "$cpu" "${FAILS[$engine$p$client]}" "${RATES[$engine$p$client]}"
    done
  done
done

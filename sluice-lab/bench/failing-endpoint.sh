#!/usr/bin/env bash
# failing-endpoint.sh: what clients see when one of an upstream's three endpoints fails a share of its
# requests (#17's figure: under 0.1 % errors at 100 users). nginx serves a 16 KB file on three ports;
# the third answers 503 to --fail-percent of its requests (split_clients on $request_id). The gateway
# proxies GET /16k to the three as one upstream in each engine mode and each variant, and wrk
# (--connections, --seconds) counts the non-2xx answers. Variants: `none` (the defaults: outlier
# detection on, no retry), `retry` (outlier detection and `retry: {attempts: 2, on: [connect-failure,
# reset, 503]}`), `alone` (that retry with outlier detection off: what retries do by themselves). The
# admin listener's /metrics gives the retries begun and those the retry budget refused.
#
#   bash sluice-lab/bench/failing-endpoint.sh [--jar sluice-app/target/sluice.jar] [--engines "virtual platform reactive"]
#        [--variants "none retry alone"] [--seconds 20] [--connections 100] [--fail-percent 20]
#        [--port 18481] [--nginx-port 18090]
#
# Installs nginx and wrk from Debian when missing (as root). Loopback only, bounded in time.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=bench-lib.sh
source "$ROOT/sluice-lab/bench/bench-lib.sh"

JAR=$ROOT/sluice-app/target/sluice.jar
ENGINES="virtual platform reactive"
VARIANTS="none retry alone"
SECONDS_=20
CONNECTIONS=100
FAIL=20
PORT=18481
NGINX_PORT=18090
while [[ $# -gt 0 ]]; do
  case $1 in
    --jar) JAR=$2; shift 2 ;;
    --engines) ENGINES=$2; shift 2 ;;
    --variants) VARIANTS=$2; shift 2 ;;
    --seconds) SECONDS_=$2; shift 2 ;;
    --connections) CONNECTIONS=$2; shift 2 ;;
    --fail-percent) FAIL=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --nginx-port) NGINX_PORT=$2; shift 2 ;;
    *) echo "failing-endpoint: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -f $JAR ]] || { echo "failing-endpoint: $JAR is missing (./mvnw -q install -DskipTests)" >&2; exit 1; }
JAVA_HOME_25=$(bench_jdk25) || { echo "failing-endpoint: no JDK 25 found (JAVA_HOME or /usr/lib/jvm)" >&2; exit 1; }
JAVA=$JAVA_HOME_25/bin/java
bench_need failing-endpoint wrk wrk
bench_need failing-endpoint nginx nginx
export PATH=$PATH:/usr/sbin

WORK=$(mktemp -d /tmp/failing-endpoint.XXXXXX)
cp "$JAR" "$WORK/sluice.jar"
bench_nginx_files "$WORK" "$NGINX_PORT"
# two healthy endpoints and a third that fails FAIL % of its requests
sed -i "s|  server { listen 127.0.0.1:$NGINX_PORT; root $WORK/www; }|\
  server { listen 127.0.0.1:$NGINX_PORT; root $WORK/www; }\n\
  server { listen 127.0.0.1:$((NGINX_PORT + 1)); root $WORK/www; }\n\
  split_clients \"\${request_id}\" \$fail { $FAIL% 1; * 0; }\n\
  server { listen 127.0.0.1:$((NGINX_PORT + 2)); root $WORK/www; location / { if (\$fail) { return 503; } } }|" "$WORK/nginx.conf"
trap bench_cleanup EXIT
nginx -c "$WORK/nginx.conf" -p "$WORK"
BENCH_NGINX_WORK=$WORK

ok=0 bad=0
for i in $(seq 1 2000); do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$((NGINX_PORT + 2))/16k")
  if [[ $code == 200 ]]; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
done
echo "the failing endpoint alone: $bad of $((ok + bad)) requests answered 503"

config() { # FILE RETRY: the gateway's configuration, with RETRY as the upstream's retry setting
  cat >"$1" <<YAML
server: { host: 127.0.0.1, port: $PORT }
admin: { host: 127.0.0.1, port: $((PORT + 1)) }
upstreams:
  web:
    endpoints: ["http://127.0.0.1:$NGINX_PORT", "http://127.0.0.1:$((NGINX_PORT + 1))", "http://127.0.0.1:$((NGINX_PORT + 2))"]
$2
routes:
  - id: file
    match: { path: /16k, methods: [GET] }
    proxy: { upstream: web }
YAML
}
config "$WORK/none.yaml" ""
config "$WORK/retry.yaml" "    retry: { attempts: 2, on: [connect-failure, reset, 503] }"
config "$WORK/alone.yaml" "    retry: { attempts: 2, on: [connect-failure, reset, 503] }
    outlier-detection: false"

printf '\n%-9s %-7s %12s %10s %9s %10s %9s %11s\n' engine variant requests non-2xx errors req/s retries over-budget
for engine in $ENGINES; do
  for variant in $VARIANTS; do
    "$JAVA" -jar "$WORK/sluice.jar" run -c "$WORK/$variant.yaml" --engine "$engine" >"$WORK/$engine-$variant.log" 2>&1 &
    pid=$!
    BENCH_PIDS+=("$pid")
    bench_wait_ready failing-endpoint "http://127.0.0.1:$PORT/16k" "$pid" "$WORK/$engine-$variant.log"
    wrk -t2 -c"$CONNECTIONS" -d5s "http://127.0.0.1:$PORT/16k" >/dev/null # warm-up
    wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_}s" "http://127.0.0.1:$PORT/16k" >"$WORK/$engine-$variant.wrk"
    curl -s "http://127.0.0.1:$((PORT + 1))/metrics" >"$WORK/$engine-$variant.metrics"
    kill "$pid"; wait "$pid" 2>/dev/null || true
    retries=$(sed -n 's/^sluice_upstream_retries_total{upstream="web"} \([0-9]*\).*/\1/p' "$WORK/$engine-$variant.metrics")
    over=$(sed -n 's/^sluice_upstream_retries_over_budget_total{upstream="web"} \([0-9]*\).*/\1/p' "$WORK/$engine-$variant.metrics")
    total=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$WORK/$engine-$variant.wrk")
    non2xx=$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' "$WORK/$engine-$variant.wrk")
    errors=$(sed -n 's/^ *Socket errors:.*/&/p' "$WORK/$engine-$variant.wrk")
    rate=$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$WORK/$engine-$variant.wrk")
    non2xx=${non2xx:-0}
    printf '%-9s %-7s %12s %10s %8.3f%% %10s %9s %11s %s\n' "$engine" "$variant" "$total" "$non2xx" \
      "$(echo "scale=6; 100 * $non2xx / $total" | bc)" "$rate" "${retries:--}" "${over:--}" "$errors"
  done
done
echo "(wrk -t2 -c$CONNECTIONS -d${SECONDS_}s after a 5 s warm-up; the failing endpoint answers 503 to $FAIL % of its requests;"
echo " retries and over-budget count the warm-up too; work files in $WORK)"

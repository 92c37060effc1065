#!/usr/bin/env bash
# Where the CPU of a benchmark goes when the gateway, its upstreams and wrk share one machine.
#
# For GET /compose (the demo upstreams' 16/5/7 KB APIs) and GET /16k (a 16 KB static file proxied
# from nginx), for each engine mode: starts the gateway with the launcher's default JVM flags, warms
# up, then runs wrk and reads the CPU time (user + system) of every process taking part: the gateway
# (/proc/PID/stat), the upstreams (the demo upstreams' JVM, or nginx's master and workers) and wrk
# itself (bash's `time`). Prints each one's CPU per request. Also measures nginx serving the file
# to wrk directly, the reference for "a proxy at half of nginx's rate".
#
# The sum of the three columns is the machine's CPU per request; what the gateway may use at a target
# rate R on C cores is at most C / R minus the upstreams' and wrk's share.
#
# Installs nginx and wrk from Debian when missing (as root). Loopback only, bounded in time.
#
# usage: cpu-floor.sh [--engines "virtual reactive platform"] [--paths "/compose /16k"]
#                     [--connections 100] [--warmup 10s] [--duration 20s] [--port 18480]
#                     [--upstream-port-base 19081] [--nginx-port 18090]
set -euo pipefail

ENGINES="virtual reactive platform"
PATHS="/compose /16k"
CONNECTIONS=100
WARMUP=10s
DURATION=20s
PORT=18480
BASE=19081
NGINX_PORT=18090
while [[ $# -gt 0 ]]; do
  case "$1" in
    --engines) ENGINES=$2; shift 2 ;;
    --paths) PATHS=$2; shift 2 ;;
    --connections) CONNECTIONS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --upstream-port-base) BASE=$2; shift 2 ;;
    --nginx-port) NGINX_PORT=$2; shift 2 ;;
    *) echo "cpu-floor: unknown option '$1' (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/cpu-floor.XXXXXX)
PIDS=()
NGINX_STARTED=0

cleanup() {
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  if [[ $NGINX_STARTED == 1 ]]; then
    nginx -c "$WORK/nginx.conf" -p "$WORK" -s stop 2>/dev/null || true
  fi
  wait 2>/dev/null || true
}
trap cleanup EXIT

need() { # command, Debian package
  command -v "$1" >/dev/null 2>&1 && return 0
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "cpu-floor: installing $2 from Debian" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
  fi
  command -v "$1" >/dev/null 2>&1 || { echo "cpu-floor: '$1' is missing (install the Debian package '$2')" >&2; exit 1; }
}
need wrk wrk
need nginx nginx
export PATH=$PATH:/usr/sbin

port_free() { ! (exec 9<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }
for p in "$PORT" "$NGINX_PORT" $(seq "$BASE" $((BASE + 2))); do
  port_free "$p" || { echo "cpu-floor: port $p is in use (choose --port / --nginx-port / --upstream-port-base)" >&2; exit 1; }
done

cd "$ROOT"
./sluice version >/dev/null # finds JDK 25 and builds on first use
# Everything runs through the launcher (it execs java, so $! is the JVM), on its default flags:
# this measures what users run. FLAGS is only printed.
FLAGS=$(sed -n 's/^DEFAULT_JAVA_OPTS="\(.*\)"$/\1/p' sluice)
unset SLUICE_JAVA_OPTS

ticks() { # CPU ticks of processes (and their children)
  local t=0 p q
  for p in "$@"; do
    for q in "$p" $(pgrep -P "$p" || true); do
      [[ -r /proc/$q/stat ]] && t=$((t + $(sed 's/^.*) //' "/proc/$q/stat" | awk '{ print $12 + $13 }')))
    done
  done
  echo "$t"
}
HZ=$(getconf CLK_TCK)

# The upstreams: the demo's (a JVM) and nginx with a 16 KB file.
./sluice upstreams --host 127.0.0.1 --port-base "$BASE" >"$WORK/upstreams.log" 2>&1 &
UPSTREAMS=$!
PIDS+=("$UPSTREAMS")
mkdir -p "$WORK/www"
chmod 755 "$WORK" "$WORK/www" # nginx's workers run as another user
head -c 12288 /dev/urandom | base64 -w 100 | head -c 16384 >"$WORK/www/16k"
chmod 644 "$WORK/www/16k"
cat >"$WORK/nginx.conf" <<EOF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  client_body_temp_path $WORK/t1; proxy_temp_path $WORK/t2; fastcgi_temp_path $WORK/t3;
  uwsgi_temp_path $WORK/t4; scgi_temp_path $WORK/t5;
  server { listen 127.0.0.1:$NGINX_PORT; root $WORK/www; }
}
EOF
nginx -c "$WORK/nginx.conf" -p "$WORK" 2>/dev/null
NGINX_STARTED=1
for _ in $(seq 1 100); do
  curl -sf -o /dev/null "http://127.0.0.1:$((BASE + 2))/reviews" && curl -sf -o /dev/null "http://127.0.0.1:$NGINX_PORT/16k" && break
  sleep 0.1
done
NGINX_MASTER=$(cat "$WORK/nginx.pid")
size=$(curl -sf -o /dev/null -w '%{size_download}' "http://127.0.0.1:$NGINX_PORT/16k" || echo failed)
[[ $size == 16384 ]] || { echo "cpu-floor: nginx does not serve the 16 KB file ($size; see $WORK/nginx-error.log)" >&2; exit 1; }

cat >"$WORK/gateway.yaml" <<EOF
server: { host: 127.0.0.1, port: $PORT }
upstreams:
  products:  { url: "http://127.0.0.1:$BASE" }
  customers: { url: "http://127.0.0.1:$((BASE + 1))" }
  reviews:   { url: "http://127.0.0.1:$((BASE + 2))" }
  web:       { url: "http://127.0.0.1:$NGINX_PORT" }
routes:
  - id: compose
    match: { path: /compose, methods: [GET] }
    compose:
      parts:
        products: { upstream: products,  path: /products }
        customer: { upstream: customers, path: /customers/42 }
        reviews:  { upstream: reviews,   path: /reviews }
  - id: file
    match: { path: /16k, methods: [GET] }
    proxy: { upstream: web }
EOF

# measure LABEL URL GATEWAY_PID UPSTREAM_PIDS...: one line of CPU per request.
measure() {
  local label=$1 url=$2 gw=$3
  shift 3
  wrk -t2 -c"$CONNECTIONS" -d"$WARMUP" "$url" >/dev/null
  local g0 u0 g1 u1 n rps wrk_cpu
  g0=$([[ $gw == - ]] && echo 0 || ticks "$gw")
  u0=$(ticks "$@")
  TIMEFORMAT='%U %S'
  { time wrk -t2 -c"$CONNECTIONS" -d"$DURATION" "$url" >"$WORK/wrk.txt"; } 2>"$WORK/wrk-time.txt"
  g1=$([[ $gw == - ]] && echo 0 || ticks "$gw")
  u1=$(ticks "$@")
  n=$(awk '/ requests in / { print $1 }' "$WORK/wrk.txt")
  rps=$(awk '/^Requests\/sec:/ { print $2 }' "$WORK/wrk.txt")
  wrk_cpu=$(awk '{ print $1 + $2 }' "$WORK/wrk-time.txt")
  bad=$(awk '/Non-2xx|Socket errors/ { printf "%s ", $0 }' "$WORK/wrk.txt")
  if [[ -n $bad ]]; then
    echo "cpu-floor: $label: $bad- not a valid measurement (wrk output in $WORK/wrk.txt)" >&2
    exit 1
  fi
  awk -v l="$label" -v r="$rps" -v n="$n" -v g=$((g1 - g0)) -v u=$((u1 - u0)) -v w="$wrk_cpu" -v hz="$HZ" -v bad="$bad" 'BEGIN {
    printf "%-22s req/s=%-9s CPU ms per request: gateway=%.3f upstreams=%.3f wrk=%.3f  upstreams+wrk=%.3f  total=%.3f%s\n",
      l, r, g * 1000 / hz / n, u * 1000 / hz / n, w * 1000 / n, (u * 1000 / hz + w * 1000) / n,
      (g * 1000 / hz + u * 1000 / hz + w * 1000) / n, (bad == "" ? "" : "  " bad) }'
}

echo "cpu-floor: wrk -t2 -c$CONNECTIONS, warm-up $WARMUP, measured $DURATION; gateway flags: $FLAGS; $(nproc) CPUs"
for path in $PATHS; do
  if [[ $path == /16k ]]; then
    measure "nginx alone /16k" "http://127.0.0.1:$NGINX_PORT/16k" - "$NGINX_MASTER"
  fi
done
for engine in $ENGINES; do
  ./sluice run -c "$WORK/gateway.yaml" --engine "$engine" >"$WORK/gateway-$engine.log" 2>&1 &
  gw=$!
  PIDS+=("$gw")
  for _ in $(seq 1 100); do
    curl -sf -o /dev/null "http://127.0.0.1:$PORT/16k" && break
    sleep 0.1
  done
  for path in $PATHS; do
    if [[ $path == /16k ]]; then
      measure "$engine $path" "http://127.0.0.1:$PORT$path" "$gw" "$NGINX_MASTER"
    else
      measure "$engine $path" "http://127.0.0.1:$PORT$path" "$gw" "$UPSTREAMS"
    fi
  done
  kill "$gw"
  wait "$gw" 2>/dev/null || true
done
echo "cpu-floor: logs in $WORK"

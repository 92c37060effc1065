#!/usr/bin/env bash
# Where the CPU of a benchmark goes when the gateway, its upstreams and wrk share one machine.
#
# For GET /compose (the demo upstreams' 16/5/7 KB APIs) and GET /16k (a 16 KB static file proxied
# from nginx), for each engine mode: starts the gateway with the launcher's default JVM flags, warms
# up, then runs wrk and reads the CPU time (user + system) of every process taking part: the gateway
# (/proc/PID/stat), the upstreams (the demo upstreams' JVM, or nginx's master and workers) and wrk
# itself (bash's `time`). Prints each one's CPU per request, and how much of the gateway's was
# spent in the kernel (system time: socket calls, TCP on loopback, waking the peer, scheduling),
# and the gateway's context switches per request (/proc). With --syscalls, also its system calls
# per request, counted by `perf stat` (the kernel's syscall tracepoint: it slows every system call a
# little, so req/s and CPU are not comparable with a run without it).
#
# References, measured the same way on the same upstreams:
# - nginx serving the file to wrk directly ("a proxy at half of nginx's rate");
# - nginx as the gateway: a keep-alive reverse proxy of that file, and a composition of the same
#   three demo APIs into the same JSON object by SSI subrequests (issued in parallel, spliced in
#   declared order, never parsed): what a C event loop does on this machine with the same job.
#
# The sum of the three columns is the machine's CPU per request; what the gateway may use at a target
# rate R on C cores is at most C / R minus the upstreams' and wrk's share.
#
# Installs nginx and wrk from Debian when missing (as root). Loopback only, bounded in time.
#
# usage: cpu-floor.sh [--engines "virtual reactive platform"] [--paths "/compose /16k"]
#                     [--connections 100] [--warmup 10s] [--duration 20s] [--port 18480]
#                     [--upstream-port-base 19081] [--nginx-port 18090] [--no-references] [--syscalls]
# (nginx as the gateway listens on --nginx-port + 1.)
set -euo pipefail

ENGINES="virtual reactive platform"
PATHS="/compose /16k"
CONNECTIONS=100
WARMUP=10s
DURATION=20s
PORT=18480
BASE=19081
NGINX_PORT=18090
REFERENCES=1
SYSCALLS=0
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
    --no-references) REFERENCES=0; shift ;;
    --syscalls) SYSCALLS=1; shift ;;
    *) echo "cpu-floor: unknown option '$1' (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=sluice-lab/bench/bench-lib.sh
source "$ROOT/sluice-lab/bench/bench-lib.sh"
WORK=$(mktemp -d /tmp/cpu-floor.XXXXXX)
PIDS=()
NGINX_STARTED=0
NGINX_GATEWAY_STARTED=0
NGINX_GATEWAY_PORT=$((NGINX_PORT + 1))

cleanup() {
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  if [[ $NGINX_STARTED == 1 ]]; then
    nginx -c "$WORK/nginx.conf" -p "$WORK" -s stop 2>/dev/null || true
  fi
  if [[ $NGINX_GATEWAY_STARTED == 1 ]]; then
    nginx -c "$WORK/gw/nginx-gateway.conf" -p "$WORK/gw" -s stop 2>/dev/null || true
  fi
  wait 2>/dev/null || true
}
trap cleanup EXIT

bench_need cpu-floor wrk wrk
bench_need cpu-floor nginx nginx
if [[ $SYSCALLS == 1 ]]; then
  bench_need cpu-floor perf linux-perf
  perf stat -e raw_syscalls:sys_enter -o /dev/null true 2>/dev/null ||
    { echo "cpu-floor: perf cannot count system calls here (try as root, or lower /proc/sys/kernel/perf_event_paranoid)" >&2; exit 1; }
fi
export PATH=$PATH:/usr/sbin

port_free() { ! (exec 9<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }
for p in "$PORT" "$NGINX_PORT" "$NGINX_GATEWAY_PORT" $(seq "$BASE" $((BASE + 2))); do
  port_free "$p" || { echo "cpu-floor: port $p is in use (choose --port / --nginx-port / --upstream-port-base)" >&2; exit 1; }
done

cd "$ROOT"
./sluice version >/dev/null # finds JDK 25 and builds on first use
# Everything runs through the launcher (it execs java, so $! is the JVM), on its default flags:
# this measures what users run. FLAGS is only printed.
FLAGS=$(sed -n 's/^DEFAULT_JAVA_OPTS="\(.*\)"$/\1/p' sluice)
unset SLUICE_JAVA_OPTS

ticks() { # CPU ticks of processes (and their children): "user system"
  local u=0 s=0 p q us
  for p in "$@"; do
    for q in "$p" $(pgrep -P "$p" || true); do
      if [[ -r /proc/$q/stat ]]; then
        us=$(sed 's/^.*) //' "/proc/$q/stat" | awk '{ print $12, $13 }')
        u=$((u + ${us% *}))
        s=$((s + ${us#* }))
      fi
    done
  done
  echo "$u $s"
}
total() { echo $(($1 + $2)); } # of a ticks answer
pids() { # processes and their children, comma-separated
  local p q out=""
  for p in "$@"; do
    for q in "$p" $(pgrep -P "$p" || true); do out+="${out:+,}$q"; done
  done
  echo "$out"
}
switches() { # context switches (voluntary and not) of the processes' threads and their children's
  local p q files=()
  for p in "$@"; do
    for q in "$p" $(pgrep -P "$p" || true); do files+=(/proc/"$q"/task/*/status); done
  done
  cat "${files[@]}" 2>/dev/null | awk '/ctxt_switches:/ { s += $2 } END { print s + 0 }'
}
HZ=$(getconf CLK_TCK)

# The upstreams: the demo's (a JVM) and nginx with a 16 KB file.
./sluice upstreams --host 127.0.0.1 --port-base "$BASE" >"$WORK/upstreams.log" 2>&1 &
UPSTREAMS=$!
PIDS+=("$UPSTREAMS")
bench_nginx_files "$WORK" "$NGINX_PORT"
nginx -c "$WORK/nginx.conf" -p "$WORK" 2>/dev/null
NGINX_STARTED=1
for _ in $(seq 1 100); do
  curl -sf -o /dev/null "http://127.0.0.1:$((BASE + 2))/reviews" && curl -sf -o /dev/null "http://127.0.0.1:$NGINX_PORT/16k" && break
  sleep 0.1
done
NGINX_MASTER=$(cat "$WORK/nginx.pid")
size=$(curl -sf -o /dev/null -w '%{size_download}' "http://127.0.0.1:$NGINX_PORT/16k" || echo failed)
[[ $size == 16384 ]] || { echo "cpu-floor: nginx does not serve the 16 KB file ($size; see $WORK/nginx-error.log)" >&2; exit 1; }

bench_gateway_yaml "$WORK/gateway.yaml" "$PORT" "$BASE" "$NGINX_PORT"

# measure LABEL URL GATEWAY_PID UPSTREAM_PIDS...: one line of CPU per request.
measure() {
  local label=$1 url=$2 gw=$3
  shift 3
  wrk -t2 -c"$CONNECTIONS" -d"$WARMUP" "$url" >/dev/null
  local g0 u0 g1 u1 c0 c1 n rps wrk_cpu perf_pid=""
  g0=$([[ $gw == - ]] && echo 0 0 || ticks "$gw")
  u0=$(ticks "$@")
  c0=$([[ $gw == - ]] && echo 0 || switches "$gw")
  if [[ $SYSCALLS == 1 && $gw != - ]]; then # the gateway's system calls
    perf stat -x, -e raw_syscalls:sys_enter -p "$(pids "$gw")" -o "$WORK/perf.txt" 2>/dev/null &
    perf_pid=$!
  fi
  TIMEFORMAT='%U %S'
  { time wrk -t2 -c"$CONNECTIONS" -d"$DURATION" "$url" >"$WORK/wrk.txt"; } 2>"$WORK/wrk-time.txt"
  g1=$([[ $gw == - ]] && echo 0 0 || ticks "$gw")
  u1=$(ticks "$@")
  c1=$([[ $gw == - ]] && echo 0 || switches "$gw")
  local calls=-1
  if [[ -n $perf_pid ]]; then
    kill -INT "$perf_pid" 2>/dev/null || true
    wait "$perf_pid" 2>/dev/null || true
    calls=$(awk -F, '/raw_syscalls:sys_enter/ && $1 ~ /^[0-9]+$/ { print $1 }' "$WORK/perf.txt" 2>/dev/null)
    calls=${calls:--1}
  fi
  n=$(awk '/ requests in / { print $1 }' "$WORK/wrk.txt")
  rps=$(awk '/^Requests\/sec:/ { print $2 }' "$WORK/wrk.txt")
  wrk_cpu=$(awk '{ print $1 + $2 }' "$WORK/wrk-time.txt")
  bad=$(awk '/Non-2xx|Socket errors/ { printf "%s ", $0 }' "$WORK/wrk.txt")
  if [[ -n $bad ]]; then
    echo "cpu-floor: $label: $bad- not a valid measurement (wrk output in $WORK/wrk.txt)" >&2
    exit 1
  fi
  awk -v l="$label" -v r="$rps" -v n="$n" -v g=$(($(total $g1) - $(total $g0))) -v gs=$((${g1#* } - ${g0#* })) \
    -v u=$(($(total $u1) - $(total $u0))) -v w="$wrk_cpu" -v hz="$HZ" -v cs=$((c1 - c0)) -v calls="$calls" \
    -v gw="$gw" 'BEGIN {
    printf "%-26s req/s=%-9s CPU ms per request: gateway=%.3f (kernel %.3f) upstreams=%.3f wrk=%.3f  upstreams+wrk=%.3f  total=%.3f",
      l, r, g * 1000 / hz / n, gs * 1000 / hz / n, u * 1000 / hz / n, w * 1000 / n, (u * 1000 / hz + w * 1000) / n,
      (g * 1000 / hz + u * 1000 / hz + w * 1000) / n
    if (gw != "-") printf "  gateway per request: %.1f context switches", cs / n
    if (calls >= 0) printf ", %.1f system calls", calls / n
    printf "\n" }'
}

# measure_paths LABEL PORT GATEWAY_PID: every path, each against its own upstream.
measure_paths() {
  local path
  for path in $PATHS; do
    if [[ $path == /16k ]]; then
      measure "$1 $path" "http://127.0.0.1:$2$path" "$3" "$NGINX_MASTER"
    else
      measure "$1 $path" "http://127.0.0.1:$2$path" "$3" "$UPSTREAMS"
    fi
  done
}

echo "cpu-floor: wrk -t2 -c$CONNECTIONS, warm-up $WARMUP, measured $DURATION; gateway flags: $FLAGS; $(nproc) CPUs"
for path in $PATHS; do
  if [[ $path == /16k ]]; then
    measure "nginx alone /16k" "http://127.0.0.1:$NGINX_PORT/16k" - "$NGINX_MASTER"
  fi
done
if [[ $REFERENCES == 1 ]]; then
  # nginx as the gateway, with as many workers as cores (the JVM gateways use every core too).
  bench_nginx_gateway "$WORK/gw" "$NGINX_GATEWAY_PORT" "$BASE" "$NGINX_PORT" auto
  nginx -c "$WORK/gw/nginx-gateway.conf" -p "$WORK/gw" 2>/dev/null
  NGINX_GATEWAY_STARTED=1
  for _ in $(seq 1 50); do
    [[ -s $WORK/gw/nginx.pid ]] && break
    sleep 0.1
  done
  NGINX_GATEWAY=$(cat "$WORK/gw/nginx.pid")
  composed=$(curl -sf "http://127.0.0.1:$NGINX_GATEWAY_PORT/compose" | tr -d ' \n' | head -c 13 || true)
  [[ $composed == '{"products":{' ]] ||
    { echo "cpu-floor: nginx's SSI composition does not answer the JSON object ('$composed'; see $WORK/gw/nginx-error.log)" >&2; exit 1; }
  measure_paths "nginx as gateway" "$NGINX_GATEWAY_PORT" "$NGINX_GATEWAY"
  nginx -c "$WORK/gw/nginx-gateway.conf" -p "$WORK/gw" -s stop 2>/dev/null || true
  NGINX_GATEWAY_STARTED=0
fi
for engine in $ENGINES; do
  ./sluice run -c "$WORK/gateway.yaml" --engine "$engine" >"$WORK/gateway-$engine.log" 2>&1 &
  gw=$!
  PIDS+=("$gw")
  for _ in $(seq 1 100); do
    curl -sf -o /dev/null "http://127.0.0.1:$PORT/16k" && break
    sleep 0.1
  done
  measure_paths "$engine" "$PORT" "$gw"
  kill "$gw"
  wait "$gw" 2>/dev/null || true
done
echo "cpu-floor: logs in $WORK"

#!/usr/bin/env bash
# Helidon 4 WebServer against Jetty for the `virtual` engine (issue 33, goal 1): is a server built
# for virtual threads (a virtual thread per connection on a blocking socket) cheaper per request
# than the Sluice gateway on Jetty 12 in `virtual` mode, for GET /16k proxied from nginx?
#
# Subjects, every JVM on the launcher's flags (DEFAULT_JAVA_OPTS in ./sluice):
#   virtual  the Sluice gateway, `java -jar sluice-app/target/sluice.jar run -c` (bench_gateway_yaml)
#   helidon  sluice-lab/baselines/helidon-proxy: Helidon 4.5.0 WebServer + HTTP/1.1 WebClient, GET only
#   bare     BareProxy (sluice-engine-blocking's test classes): a virtual thread per connection on a
#            ServerSocket with Sluice's upstream client, no HTTP correctness (a lower bound)
# Each is warmed for --warmup, then in --rounds rounds, each in a new random order, `wrk -t2
# -c$CONNECTIONS -d$DURATION` runs on each subject; its JVM's CPU (utime + stime of /proc/PID/stat)
# over the run gives CPU ms per request. Prints per subject the median req/s, the median CPU ms per
# request, and the medians of its per-round ratios to `virtual` (req/s and CPU per request).
#
# Needs: the Sluice jar and the blocking engine's test classes (./mvnw -o -DskipTests -pl sluice-app
# -am package), the Helidon proxy (./mvnw -f sluice-lab/baselines/helidon-proxy/pom.xml package),
# nginx and wrk (installed from Debian when missing, as root). Loopback only, bounded in time.
#
# usage: helidon-ab.sh [--rounds 5] [--duration 8s] [--warmup 15s] [--connections 100]
#                      [--subjects "virtual helidon bare"] [--port-base 18560] [--nginx-port 18559] [--check]
# (--check: start every subject, check each answers the 16 KB file, and stop: no load.)
set -euo pipefail

ROUNDS=5
DURATION=8s
WARMUP=15s
CONNECTIONS=100
SUBJECTS="virtual helidon bare"
PORT_BASE=18560
NGINX_PORT=18559
CHECK=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --connections) CONNECTIONS=$2; shift 2 ;;
    --subjects) SUBJECTS=$2; shift 2 ;;
    --port-base) PORT_BASE=$2; shift 2 ;;
    --nginx-port) NGINX_PORT=$2; shift 2 ;;
    --check) CHECK=1; shift ;;
    *) echo "helidon-ab: unknown option '$1' (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=sluice-lab/bench/bench-lib.sh
source "$ROOT/sluice-lab/bench/bench-lib.sh"
bench_need helidon-ab wrk wrk
bench_need helidon-ab nginx nginx
export PATH=$PATH:/usr/sbin
JDK=$(bench_jdk25) || { echo "helidon-ab: no JDK 25 found (set JAVA_HOME)" >&2; exit 1; }
JAVA=$JDK/bin/java
FLAGS=$(sed -n 's/^DEFAULT_JAVA_OPTS="\(.*\)"$/\1/p' "$ROOT/sluice")
APP_JAR=$ROOT/sluice-app/target/sluice.jar
HELIDON_JAR=$ROOT/sluice-lab/baselines/helidon-proxy/target/helidon-proxy.jar
BLOCKING=$ROOT/sluice-engine-blocking/target
WORK=$(mktemp -d /tmp/helidon-ab.XXXXXX)

port_free() { ! (exec 9<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }
trap bench_cleanup EXIT
bench_nginx_files "$WORK" "$NGINX_PORT"
port_free "$NGINX_PORT" || { echo "helidon-ab: port $NGINX_PORT is in use" >&2; exit 1; }
nginx -c "$WORK/nginx.conf" -p "$WORK" 2>/dev/null
BENCH_NGINX_WORK=$WORK
UPSTREAM=http://127.0.0.1:$NGINX_PORT

declare -A PID PORT
i=0
for s in $SUBJECTS; do
  port=$((PORT_BASE + i))
  i=$((i + 1))
  port_free "$port" || { echo "helidon-ab: port $port is in use (choose --port-base)" >&2; exit 1; }
  # shellcheck disable=SC2086 # FLAGS is a list of flags
  case $s in
    virtual)
      [[ -f $APP_JAR ]] || { echo "helidon-ab: $APP_JAR is missing (see Needs above)" >&2; exit 1; }
      bench_gateway_yaml "$WORK/gateway.yaml" "$port" 19990 "$NGINX_PORT"
      "$JAVA" $FLAGS -jar "$APP_JAR" run -c "$WORK/gateway.yaml" --engine virtual >"$WORK/$s.log" 2>&1 & ;;
    helidon)
      [[ -f $HELIDON_JAR ]] || { echo "helidon-ab: $HELIDON_JAR is missing (see Needs above)" >&2; exit 1; }
      "$JAVA" $FLAGS -jar "$HELIDON_JAR" "$UPSTREAM" "$port" >"$WORK/$s.log" 2>&1 & ;;
    bare)
      [[ -d $BLOCKING/test-classes && -f $APP_JAR ]] || { echo "helidon-ab: $BLOCKING/test-classes is missing (see Needs above)" >&2; exit 1; }
      "$JAVA" $FLAGS -cp "$BLOCKING/test-classes:$BLOCKING/classes:$APP_JAR" dev.sluice.engine.blocking.bench.BareProxy \
        "$port" "$UPSTREAM" >"$WORK/$s.log" 2>&1 & ;;
    *) echo "helidon-ab: unknown subject '$s' (virtual, helidon, bare)" >&2; exit 2 ;;
  esac
  PID[$s]=$!
  PORT[$s]=$port
  BENCH_PIDS+=("$!")
done
for s in $SUBJECTS; do
  bench_wait_ready helidon-ab "http://127.0.0.1:${PORT[$s]}/16k" "${PID[$s]}" "$WORK/$s.log"
  size=$(curl -sf -o /dev/null -w '%{size_download}' "http://127.0.0.1:${PORT[$s]}/16k" || echo failed)
  [[ $size == 16384 ]] || { echo "helidon-ab: $s does not answer the 16 KB file ($size; see $WORK/$s.log)" >&2; exit 1; }
  [[ $CHECK == 0 ]] || echo "helidon-ab: $s (pid ${PID[$s]}) answers the 16 KB file on port ${PORT[$s]}"
done
[[ $CHECK == 0 ]] || exit 0

ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; } # utime + stime of a JVM
HZ=$(getconf CLK_TCK)

echo "helidon-ab: wrk -t2 -c$CONNECTIONS -d$DURATION, $ROUNDS rounds in random order, warm-up $WARMUP each; JVM flags: $FLAGS; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
for s in $SUBJECTS; do
  wrk -t2 -c"$CONNECTIONS" -d"$WARMUP" "http://127.0.0.1:${PORT[$s]}/16k" >/dev/null
done

# one line per run in $WORK/runs: ROUND SUBJECT REQ/S CPU_MS_PER_REQUEST
: >"$WORK/runs"
for r in $(seq 1 "$ROUNDS"); do
  order=$(printf '%s\n' $SUBJECTS | shuf | tr '\n' ' ')
  for s in $order; do
    t0=$(ticks "${PID[$s]}")
    wrk -t2 -c"$CONNECTIONS" -d"$DURATION" "http://127.0.0.1:${PORT[$s]}/16k" >"$WORK/wrk-$r-$s.txt"
    t1=$(ticks "${PID[$s]}")
    bad=$(awk '/Non-2xx|Socket errors/ { printf "%s ", $0 }' "$WORK/wrk-$r-$s.txt")
    [[ -z $bad ]] || { echo "helidon-ab: round $r, $s: $bad- not a valid measurement ($WORK/wrk-$r-$s.txt)" >&2; exit 1; }
    n=$(awk '/ requests in / { print $1 }' "$WORK/wrk-$r-$s.txt")
    rps=$(awk '/^Requests\/sec:/ { print $2 }' "$WORK/wrk-$r-$s.txt")
    awk -v r="$r" -v s="$s" -v rps="$rps" -v n="$n" -v t=$((t1 - t0)) -v hz="$HZ" \
      'BEGIN { printf "%d %s %s %.4f\n", r, s, rps, t * 1000 / hz / n }' | tee -a "$WORK/runs"
  done
done

# Medians per subject; ratios to `virtual` taken per round, then their median.
awk -v subjects="$SUBJECTS" '
  function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { rps[$1, $2] = $3; cpu[$1, $2] = $4; if ($1 > rounds) rounds = $1 }
  END {
    ns = split(subjects, subj, " ")
    printf "%-8s %10s %14s %16s %18s\n", "subject", "req/s", "CPU ms/req", "req/s / virtual", "CPU/req / virtual"
    for (k = 1; k <= ns; k++) {
      s = subj[k]; delete a; delete b; delete c; delete d; m = 0
      for (r = 1; r <= rounds; r++) {
        m++; a[m] = rps[r, s]; b[m] = cpu[r, s]
        if ((r, "virtual") in rps) { c[m] = rps[r, s] / rps[r, "virtual"]; d[m] = cpu[r, s] / cpu[r, "virtual"] }
      }
      if ((1, "virtual") in rps)
        printf "%-8s %10.0f %14.4f %16.3f %18.3f\n", s, median(a, m), median(b, m), median(c, m), median(d, m)
      else
        printf "%-8s %10.0f %14.4f %16s %18s\n", s, median(a, m), median(b, m), "-", "-"
    }
  }' "$WORK/runs"
echo "helidon-ab: logs and wrk outputs in $WORK; load $(cut -d' ' -f1-3 /proc/loadavg)"

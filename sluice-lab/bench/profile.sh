#!/usr/bin/env bash
# Where a gateway's CPU goes, by code: async-profiler (from Maven Central) attached to a running
# Sluice gateway while wrk loads one path, after a warm-up. Same setup as cpu-floor.sh and
# interleave.sh: the demo upstreams, nginx serving a 16 KB file, GET /compose and GET /16k.
#
# Prints the share of the gateway's CPU samples that is kernel time, the frames with the most samples
# of their own, and the share of every frame whose name contains one of --match's words (inclusive:
# the frame and everything it calls). Writes the collapsed stacks (one line per stack and its sample
# count; flame-graph tools read them) to --out.
#
# --event alloc profiles allocation instead (async-profiler's alloc event, a sample every 64 KB,
# weighted by size): the summary then gives bytes allocated per request and the types and frames
# allocating most per request (a build that allocates more costs more GC and CPU, and bytes per
# request read it without this VM's speed drift).
#
# usage: profile.sh [--engine reactive] [--path /16k] [--warmup 20] [--seconds 20] [--interval 1ms]
#                   [--flags "JVM flags after the launcher's"] [--jar sluice-app/target/sluice.jar]
#                   [--out /tmp/sluice-profile.txt] [--match "ResourceLeak ChunkAllocator"] [--top 30]
#                   [--port 18581] [--upstream-port-base 19181] [--nginx-port 18190] [--config FILE]
#                   [--event cpu|alloc] [--header "Name: value"]... [--script FILE.lua] [--tls]
# --config runs FILE instead of the bundled routes: a gateway YAML with @PORT@, @PRODUCTS@, @CUSTOMERS@,
# @REVIEWS@ and @WEB@ as in interleave.sh (sluice-lab/bench/ab/*.yaml: where a feature's cost goes).
# A config with @OTLP@ gets the URL of an OTLP/HTTP sink started here (python3, answering 200 to
# every POST, counting spans' bytes): exports succeed, as against a collector, and cost the gateway
# what they cost it in production. --header adds a header to every wrk request (a bearer token);
# --script gives wrk a Lua script (ab/traceparent-1pct.lua: a client sampling 1 % of its traces).
# --tls speaks https to the gateway (wrk's TLS, HTTP/1.1): the config (ab/tls.yaml) holds @CERT@ and
# @KEY@, a P-256 certificate for 127.0.0.1 made here with openssl, as interleave.sh --tls does.
# Installs nginx and wrk from Debian when missing (as root). Loopback only, bounded in time.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=sluice-lab/bench/bench-lib.sh
source "$ROOT/sluice-lab/bench/bench-lib.sh"
ENGINE=reactive
TARGET=/16k
WARMUP=20
SECONDS_PROFILED=20
INTERVAL=1ms
MORE_FLAGS=
JAR=$ROOT/sluice-app/target/sluice.jar
OUT=/tmp/sluice-profile.txt
MATCH=
TOP=30
PORT=18581
BASE=19181
NGINX_PORT=18190
CONFIG=
EVENT=cpu
HEADERS=()
SCRIPT=()
SCHEME=http
PROFILER_VERSION=4.1
while [[ $# -gt 0 ]]; do
  case $1 in
    --engine) ENGINE=$2; shift 2 ;;
    --path) TARGET=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --seconds) SECONDS_PROFILED=$2; shift 2 ;;
    --interval) INTERVAL=$2; shift 2 ;;
    --flags) MORE_FLAGS=$2; shift 2 ;;
    --jar) JAR=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --match) MATCH=$2; shift 2 ;;
    --top) TOP=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --upstream-port-base) BASE=$2; shift 2 ;;
    --nginx-port) NGINX_PORT=$2; shift 2 ;;
    --config) CONFIG=$2; shift 2 ;;
    --event) EVENT=$2; shift 2 ;;
    --header) HEADERS+=(-H "$2"); shift 2 ;;
    --script) SCRIPT=(-s "$2"); shift 2 ;;
    --tls) SCHEME=https; shift ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done

# shellcheck source=/dev/null
source <(sed -n 's/^\(DEFAULT_JAVA_OPTS=.*\)$/\1/p' "$ROOT/sluice")
JDK=$(bench_jdk25) || { echo "profile: no JDK 25+ found (set JAVA_HOME; see the README)" >&2; exit 1; }
[[ -f $JAR ]] || { echo "profile: $JAR is missing (./sluice builds it)" >&2; exit 1; }
bench_need profile wrk wrk
bench_need profile nginx nginx
bench_need profile python3 python3
export PATH=$PATH:/usr/sbin

WORK=$(mktemp -d /tmp/profile.XXXXXX)
AGENT=$(bench_profiler "$WORK" "$JDK" "$PROFILER_VERSION")

cp "$JAR" "$WORK/sluice.jar"
bench_upstreams "$WORK" "$JDK/bin/java" "$WORK/sluice.jar" "$BASE" "$NGINX_PORT"
if [[ -n $CONFIG ]]; then
  [[ -f $CONFIG ]] || { echo "profile: $CONFIG is missing" >&2; exit 1; }
  OTLP_PORT=$((BASE + 50))
  if grep -q @OTLP@ "$CONFIG"; then
    bench_otlp_sink "$WORK" "$OTLP_PORT"
  fi
  if [[ $SCHEME == https ]]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
      -addext subjectAltName=IP:127.0.0.1 -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
  fi
  sed -e "s|@OTLP@|http://127.0.0.1:$OTLP_PORT/v1/traces|g" -e "s|@PORT@|$PORT|g" -e "s|@PRODUCTS@|http://127.0.0.1:$BASE|g" \
    -e "s|@CUSTOMERS@|http://127.0.0.1:$((BASE + 1))|g" -e "s|@REVIEWS@|http://127.0.0.1:$((BASE + 2))|g" \
    -e "s|@WEB@|http://127.0.0.1:$NGINX_PORT|g" -e "s|@CERT@|$WORK/cert.pem|g" -e "s|@KEY@|$WORK/key.pem|g" \
    "$CONFIG" >"$WORK/gateway.yaml"
else
  bench_gateway_yaml "$WORK/gateway.yaml" "$PORT" "$BASE" "$NGINX_PORT"
fi
# shellcheck disable=SC2086 # flag lists
"$JDK/bin/java" $DEFAULT_JAVA_OPTS $MORE_FLAGS -jar "$WORK/sluice.jar" run -c "$WORK/gateway.yaml" --engine "$ENGINE" \
  >"$WORK/gateway.log" 2>&1 &
GATEWAY=$!
BENCH_PIDS+=("$GATEWAY")
URL=$SCHEME://127.0.0.1:$PORT$TARGET
if [[ ${#HEADERS[@]} -gt 0 ]]; then # a route that wants the header refuses a request without it
  for _ in $(seq 1 300); do
    curl -sfk -o /dev/null "${HEADERS[@]}" "$URL" && break
    kill -0 "$GATEWAY" 2>/dev/null || { echo "profile: the gateway exited; see $WORK/gateway.log" >&2; exit 1; }
    sleep 0.1
  done
  curl -sfk -o /dev/null "${HEADERS[@]}" "$URL" || { echo "profile: $URL does not answer" >&2; exit 1; }
else
  bench_wait_ready profile "$URL" "$GATEWAY" "$WORK/gateway.log"
fi
echo "profile: $(head -1 "$WORK/gateway.log"); flags: $DEFAULT_JAVA_OPTS $MORE_FLAGS"

# jcmd reads name=value pairs itself, so the agent's option string goes in quotes of its own.
agent() { "$JDK/bin/jcmd" "$GATEWAY" JVMTI.agent_load "$AGENT" "\"$1\"" >/dev/null; }
wrk -t2 -c100 -d"${WARMUP}s" "${HEADERS[@]}" "${SCRIPT[@]}" "$URL" | awk '/Requests\/sec/ { print "profile: warm-up " $2 " req/s" }'
case $EVENT in
  cpu) agent "start,event=cpu,interval=$INTERVAL" ;;
  alloc) agent "start,event=alloc,alloc=64k,total" ;;
  *) echo "profile: --event is cpu or alloc" >&2; exit 2 ;;
esac
LOAD=$(wrk -t2 -c100 -d"${SECONDS_PROFILED}s" "${HEADERS[@]}" "${SCRIPT[@]}" "$URL")
awk '/Requests\/sec/ { print "profile: profiled " $2 " req/s" } /Non-2xx|errors/' <<<"$LOAD"
REQUESTS=$(awk '/requests in/ { print $1 }' <<<"$LOAD")
if [[ $EVENT == alloc ]]; then
  agent "stop,file=$OUT,collapsed,total"
else
  agent "stop,file=$OUT,collapsed"
fi
[[ -s $OUT ]] || { echo "profile: the profiler wrote nothing; see $WORK/gateway.log" >&2; exit 1; }
# One reading of the collapsed stacks for both events: CPU samples (shares of the total) or
# allocated bytes (per request).
python3 - "$OUT" "$TOP" "$MATCH" "$EVENT" "${REQUESTS:-0}" <<'EOF'
import collections, sys
path, top, words, event, requests = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4], max(1, int(sys.argv[5]))
own, callers, inclusive, total = collections.Counter(), collections.Counter(), collections.Counter(), 0
for line in open(path):
    stack, count = line.rstrip().rsplit(' ', 1)
    count = int(count)
    total += count
    frames = stack.split(';')
    own[frames[-1]] += count
    if len(frames) > 1:
        callers[frames[-2]] += count
    for frame in set(frames):
        if any(w in frame for w in words):
            inclusive[frame] += count
if event == 'alloc':
    print(f"profile: {requests} requests; {total / requests:.0f} bytes allocated per request")
    for title, counter in (("types allocated most", own), ("frames allocating most themselves", callers)):
        print(f"{title} (bytes per request):")
        for name, n in counter.most_common(top):
            print(f"  {n / requests:8.0f}  {name[:130]}")
    sys.exit(0)
kernel = sum(n for f, n in own.items() if f.endswith('_[k]'))
print(f"profile: {total} samples; kernel {100 * kernel / total:.1f} %")
print("frames with the most samples of their own:")
for frame, n in own.most_common(top):
    print(f"  {100 * n / total:5.1f} %  {frame[:140]}")
if words:
    print("frames matching " + " ".join(words) + " (inclusive):")
    for frame, n in inclusive.most_common(top):
        print(f"  {100 * n / total:5.1f} %  {frame[:140]}")
EOF
[[ -f $WORK/otlp.log ]] && echo "profile: OTLP sink: $(tail -1 "$WORK/otlp.log")"
echo "profile: collapsed stacks in $OUT"

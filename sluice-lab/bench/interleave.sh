#!/usr/bin/env bash
# Interleaved A/B of gateways that are all running, all warm: short wrk runs in rotation, in a
# new random order every round, so that the drift of a shared machine (this 2-core VM's speed moves
# by 10-40 % over minutes) falls on every subject alike instead of on whichever ran last.
#
# Subjects (each its own JVM, on the launcher's default flags, all on the same upstreams):
#   NAME=JAR[:ENGINE]   a Sluice jar (any build: copy sluice-app/target/sluice.jar aside to keep
#                       one), run with `run -c` on the bundled routes; ENGINE defaults to reactive
#   --flags NAME=FLAGS  more JVM flags for subject NAME, after the launcher's defaults (A/B of a
#                       setting on one jar: --subject a=X.jar --subject b=X.jar --flags b=-Dk=v)
#   --config NAME=FILE  subject NAME runs FILE instead of the bundled routes: a gateway YAML in
#                       which @PORT@, @PRODUCTS@, @CUSTOMERS@, @REVIEWS@, @DELAY@ (seed 004's 30 ms
#                       API) and @WEB@ stand for its port and the upstreams' URLs; it must serve the --paths (A/B of a feature:
#                       the same routes with and without a filter, metrics or an access log)
#   --header NAME=H     wrk sends header H ("Authorization: Bearer ...") to subject NAME
#   --script FILE.lua   wrk runs this script for every subject alike (ab/traceparent-1pct.lua: clients
#                       sampling 1 % of their traces); @OTLP@ in a --config stands for the URL of an
#                       OTLP/HTTP sink started here (answers 200), so span export succeeds
#   --tls NAME          subject NAME is spoken to over https (wrk's TLS, HTTP/1.1): its --config
#                       holds @CERT@ and @KEY@, which stand for a P-256 certificate for 127.0.0.1
#                       and its key, made once per run with openssl (A/B of TLS termination)
#   webflux             the Spring WebFlux baseline of the lab (sluice-lab/baselines/spring-reactive;
#                       build it with `./sluice lab paper` once, or mvn -f sluice-lab/baselines)
#   nginx, nginx-tls    nginx as the gateway, one worker: /16k and /1m reverse-proxied (keep-alive),
#                       /compose by SSI subrequests into the same JSON object; -tls: over https with
#                       the same certificate as the --tls subjects (issue 33's HTTPS comparison)
#   haproxy, haproxy-tls  HAProxy (Debian's), one thread, reverse-proxying /16k and /1m (no /compose)
# The CPU of nginx is its master's and its worker's; the ratios compare any two subjects.
# Paths: /compose (the demo's 16/5/7 KB APIs composed), /16k and /1m (a 16 KB and a 1 MiB file
# proxied from nginx; the WebFlux baseline has no such route); --paths defaults to the first two.
#
# Each subject is warmed (--warmup on each path), then every round runs wrk -t2 -c100 for --seconds
# on each subject and path; the gateway's CPU per request comes from /proc/PID/stat. Prints every run,
# then the mean of each subject and path over the rounds after the first --skip, each subject's
# resident memory at the end (VmRSS) and at its peak (VmHWM), and, for every subject against the
# first one named (or for each --ratio NAME=BASE given), the median over those rounds of each round's
# ratio (req/s and CPU per request): two subjects run seconds apart within a round, so a ratio is
# less moved by the machine's drift than two means are.
#
# --profile DIR attaches async-profiler (CPU, 1 ms; from Maven Central) to every subject after its
# warm-up, for all the rounds: DIR/NAME.collapsed holds its stacks and DIR/NAME.requests the
# requests it served meanwhile, so that profiles of two builds are compared per request, sampled in
# the same sitting (a profile taken minutes after another can differ by the machine's drift alone).
#
# usage: interleave.sh --subject NAME=JAR[:ENGINE] [--subject webflux|nginx|nginx-tls|haproxy|haproxy-tls] ... [--flags NAME=FLAGS] ...
#                      [--config NAME=FILE] ... [--header NAME=H] ... [--tls NAME] ... [--script FILE.lua] [--paths "/compose /16k"]
#                      [--rounds 8] [--seconds 10] [--warmup 45] [--skip 0] [--profile DIR]
#                      [--ratio NAME=BASE] ...
#                      [--port 18481] [--upstream-port-base 19081] [--nginx-port 18090]
# Installs nginx and wrk from Debian when missing (as root). Loopback only, bounded in time.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=sluice-lab/bench/bench-lib.sh
source "$ROOT/sluice-lab/bench/bench-lib.sh"
SUBJECTS=()
declare -A FLAGS=() CONFIGS=() HEADERS=() TLS=()
PATHS="/compose /16k"
ROUNDS=8
SECONDS_PER_RUN=10
WARMUP=45
SKIP=0
PORT=18481
BASE=19081
NGINX_PORT=18090
PROFILE_DIR=
RATIOS=()
PROFILER_VERSION=4.1
SCRIPT=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --subject) SUBJECTS+=("$2"); shift 2 ;;
    --flags) FLAGS[${2%%=*}]=${2#*=}; shift 2 ;;
    --config) CONFIGS[${2%%=*}]=${2#*=}; shift 2 ;;
    --header) HEADERS[${2%%=*}]=${2#*=}; shift 2 ;;
    --tls) TLS[$2]=1; shift 2 ;;
    --script) SCRIPT=(-s "$2"); shift 2 ;;
    --paths) PATHS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --seconds) SECONDS_PER_RUN=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --skip) SKIP=$2; shift 2 ;;
    --profile) PROFILE_DIR=$2; shift 2 ;;
    --ratio) RATIOS+=("$2"); shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --upstream-port-base) BASE=$2; shift 2 ;;
    --nginx-port) NGINX_PORT=$2; shift 2 ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
[[ ${#SUBJECTS[@]} -ge 1 ]] || { echo "interleave: name at least one --subject" >&2; exit 2; }
for s in "${SUBJECTS[@]}"; do # the C peers speak TLS with the --tls subjects' certificate
  [[ $s == nginx-tls || $s == haproxy-tls ]] && TLS[$s]=1
done

# shellcheck source=/dev/null
source <(sed -n 's/^\(DEFAULT_JAVA_OPTS=.*\)$/\1/p' "$ROOT/sluice")
JDK=$(bench_jdk25) || { echo "interleave: no JDK 25+ found (set JAVA_HOME; see the README)" >&2; exit 1; }
JAVA=$JDK/bin/java
WEBFLUX_JAR=$ROOT/sluice-lab/baselines/spring-reactive/target/spring-reactive.jar

WORK=$(mktemp -d /tmp/interleave.XXXXXX)

bench_need interleave wrk wrk
bench_need interleave nginx nginx
export PATH=$PATH:/usr/sbin
if printf '%s\n' "${SUBJECTS[@]}" | grep -q '^haproxy'; then bench_need interleave haproxy haproxy; fi

if [[ ${#TLS[@]} -gt 0 ]]; then # one certificate for every TLS subject: P-256, as most sites serve
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
fi

# The upstreams: the demo's, from the first Sluice jar named, and nginx with a 16 KB file.
UPSTREAM_JAR=
for s in "${SUBJECTS[@]}"; do
  [[ $s == *=* ]] && { UPSTREAM_JAR=${s#*=}; UPSTREAM_JAR=${UPSTREAM_JAR%%:*}; break; }
done
UPSTREAM_JAR=${UPSTREAM_JAR:-$ROOT/sluice-app/target/sluice.jar}
cp "$UPSTREAM_JAR" "$WORK/upstreams.jar" # a copy: a build may replace the original meanwhile
bench_upstreams "$WORK" "$JAVA" "$WORK/upstreams.jar" "$BASE" "$NGINX_PORT"
OTLP_PORT=$((BASE + 50))
for f in "${CONFIGS[@]}"; do
  if grep -q @OTLP@ "$f"; then bench_otlp_sink "$WORK" "$OTLP_PORT"; break; fi
done

declare -A PID URL
port=$PORT
for s in "${SUBJECTS[@]}"; do
  name=${s%%=*}
  if [[ $s == nginx || $s == nginx-tls ]]; then
    if [[ $s == nginx-tls ]]; then
      bench_nginx_gateway "$WORK/$name" "$port" "$BASE" "$NGINX_PORT" 1 "$WORK/cert.pem" "$WORK/key.pem"
    else
      bench_nginx_gateway "$WORK/$name" "$port" "$BASE" "$NGINX_PORT" 1
    fi
    nginx -c "$WORK/$name/nginx-gateway.conf" -p "$WORK/$name" -g 'daemon off;' >"$WORK/$name.log" 2>&1 &
  elif [[ $s == haproxy || $s == haproxy-tls ]]; then
    if [[ $s == haproxy-tls ]]; then
      bench_haproxy "$WORK/$name" "$port" "$NGINX_PORT" "$WORK/cert.pem" "$WORK/key.pem"
    else
      bench_haproxy "$WORK/$name" "$port" "$NGINX_PORT"
    fi
    haproxy -db -f "$WORK/$name/haproxy.cfg" >"$WORK/$name.log" 2>&1 &
  elif [[ $s == webflux ]]; then
    [[ -f $WEBFLUX_JAR ]] || { echo "interleave: $WEBFLUX_JAR is missing (./sluice lab paper builds it)" >&2; exit 1; }
    # shellcheck disable=SC2086 # DEFAULT_JAVA_OPTS is a list of flags
    "$JAVA" $DEFAULT_JAVA_OPTS ${FLAGS[$name]:-} -jar "$WEBFLUX_JAR" --server.port=$port --server.address=127.0.0.1 \
      --baseline.upstream.products=http://127.0.0.1:$BASE --baseline.upstream.customers=http://127.0.0.1:$((BASE + 1)) \
      --baseline.upstream.reviews=http://127.0.0.1:$((BASE + 2)) --baseline.upstream.delay=http://127.0.0.1:$((BASE + 3)) \
      --baseline.upstream.blocking=http://127.0.0.1:$((BASE + 4)) >"$WORK/$name.log" 2>&1 &
  else
    spec=${s#*=}
    jar=${spec%%:*}
    engine=reactive
    [[ $spec == *:* ]] && engine=${spec##*:}
    [[ -f $jar ]] || { echo "interleave: $jar is missing" >&2; exit 1; }
    cp "$jar" "$WORK/$name.jar"
    if [[ -n ${CONFIGS[$name]:-} ]]; then
      [[ -f ${CONFIGS[$name]} ]] || { echo "interleave: ${CONFIGS[$name]} is missing" >&2; exit 1; }
      sed -e "s|@PORT@|$port|g" -e "s|@PRODUCTS@|http://127.0.0.1:$BASE|g" -e "s|@OTLP@|http://127.0.0.1:$OTLP_PORT/v1/traces|g" \
        -e "s|@CUSTOMERS@|http://127.0.0.1:$((BASE + 1))|g" -e "s|@REVIEWS@|http://127.0.0.1:$((BASE + 2))|g" \
        -e "s|@DELAY@|http://127.0.0.1:$((BASE + 3))|g" \
        -e "s|@WEB@|http://127.0.0.1:$NGINX_PORT|g" -e "s|@CERT@|$WORK/cert.pem|g" -e "s|@KEY@|$WORK/key.pem|g" \
        "${CONFIGS[$name]}" >"$WORK/$name.yaml"
    else
      bench_gateway_yaml "$WORK/$name.yaml" "$port" "$BASE" "$NGINX_PORT"
    fi
    # shellcheck disable=SC2086
    "$JAVA" $DEFAULT_JAVA_OPTS ${FLAGS[$name]:-} -jar "$WORK/$name.jar" run -c "$WORK/$name.yaml" --engine "$engine" >"$WORK/$name.log" 2>&1 &
  fi
  PID[$name]=$!
  BENCH_PIDS+=("$!")
  URL[$name]=http://127.0.0.1:$port
  if [[ -n ${TLS[$name]:-} ]]; then URL[$name]=https://127.0.0.1:$port; fi
  port=$((port + 1))
done

# wrk's arguments for subject NAME: its header, if any
wrk_for() {
  if [[ ${#SCRIPT[@]} -gt 0 ]]; then printf '%s\0%s\0' "${SCRIPT[@]}"; fi
  if [[ -n ${HEADERS[$1]:-} ]]; then printf '%s\0%s\0' -H "${HEADERS[$1]}"; fi
}
ready_path() { if [[ $1 == haproxy* ]]; then echo /16k; else echo /compose; fi; }
for name in "${!URL[@]}"; do
  if [[ -n ${HEADERS[$name]:-} ]]; then
    for _ in $(seq 1 300); do
      curl -sfk -o /dev/null -H "${HEADERS[$name]}" "${URL[$name]}/compose" && break
      kill -0 "${PID[$name]}" 2>/dev/null || { echo "interleave: $name exited; see $WORK/$name.log" >&2; exit 1; }
      sleep 0.1
    done
  else
    bench_wait_ready interleave "${URL[$name]}$(ready_path "$name")" "${PID[$name]}" "$WORK/$name.log"
  fi
done

names=("${!URL[@]}")
applies() { # the WebFlux baseline has no /16k, HAProxy no /compose
  [[ $1 != webflux || $2 == /compose ]] && [[ $1 != haproxy* || $2 != /compose ]]
}
java_subject() { [[ $1 != nginx* && $1 != haproxy* ]]; }
echo "interleave: wrk -t2 -c100, warm-up ${WARMUP}s per subject and path, $ROUNDS rounds of ${SECONDS_PER_RUN}s; flags: $DEFAULT_JAVA_OPTS; $(nproc) CPUs; logs in $WORK"
for name in "${names[@]}"; do
  head -1 "$WORK/$name.log" | grep -o '(engine [^)]*)' | sed "s/^/  $name: /" || true
  if [[ -n ${FLAGS[$name]:-} ]]; then echo "  $name: more flags: ${FLAGS[$name]}"; fi
  if [[ -n ${CONFIGS[$name]:-} ]]; then echo "  $name: config ${CONFIGS[$name]}"; fi
  if [[ -n ${HEADERS[$name]:-} ]]; then echo "  $name: header ${HEADERS[$name]:0:40}..."; fi
  if [[ -n ${TLS[$name]:-} ]]; then echo "  $name: over TLS (${URL[$name]})"; fi
  mapfile -d '' -t WRK_ARGS < <(wrk_for "$name")
  for p in $PATHS; do
    applies "$name" "$p" && wrk -t2 -c100 "${WRK_ARGS[@]}" -d"${WARMUP}s" "${URL[$name]}$p" >/dev/null
  done
done

if [[ -n $PROFILE_DIR ]]; then
  mkdir -p "$PROFILE_DIR"
  AGENT=$(bench_profiler "$WORK" "$JDK" "$PROFILER_VERSION")
  for name in "${names[@]}"; do
    java_subject "$name" || continue
    "$JDK/bin/jcmd" "${PID[$name]}" JVMTI.agent_load "$AGENT" '"start,event=cpu,interval=1ms"' >/dev/null
  done
fi
declare -A SERVED
cpu_ticks() { # the process's and its children's (nginx's worker): user + system
  local q t=0
  for q in "$1" $(pgrep -P "$1" || true); do
    t=$((t + $(awk '{print $14 + $15}' "/proc/$q/stat" 2>/dev/null || echo 0)))
  done
  echo "$t"
}
TICK=$(getconf CLK_TCK)
declare -A RATES CPUS ROUND_RATE ROUND_CPU
for r in $(seq 1 "$ROUNDS"); do
  for name in $(printf '%s\n' "${names[@]}" | shuf); do
    for p in $PATHS; do
      applies "$name" "$p" || continue
      mapfile -d '' -t WRK_ARGS < <(wrk_for "$name")
      c0=$(cpu_ticks "${PID[$name]}")
      out=$(wrk -t2 -c100 "${WRK_ARGS[@]}" -d"${SECONDS_PER_RUN}s" "${URL[$name]}$p")
      c1=$(cpu_ticks "${PID[$name]}")
      rate=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
      count=$(awk '/requests in/ {print $1}' <<<"$out")
      bad=$(grep -E 'Non-2xx|Socket errors' <<<"$out" | tr -s ' \n' ' ' || true)
      # kept to the nanosecond: a ratio of values rounded to the microsecond moves in steps of 1-5 %
      ms=$(awk -v c=$((c1 - c0)) -v n="$count" -v t="$TICK" 'BEGIN { printf "%.6f", c * 1000 / t / n }')
      SERVED[$name]=$((${SERVED[$name]:-0} + ${count:-0}))
      printf 'round %d  %-10s %-9s %10s req/s  gateway CPU %s ms/request %s\n' "$r" "$name" "$p" "$rate" "$ms" "$bad"
      if [[ $r -gt $SKIP ]]; then
        RATES[$name$p]="${RATES[$name$p]:-} $rate"
        CPUS[$name$p]="${CPUS[$name$p]:-} $ms"
        ROUND_RATE[$r $name$p]=$rate
        ROUND_CPU[$r $name$p]=$ms
      fi
    done
  done
done
echo "means over rounds $((SKIP + 1))-$ROUNDS:"
for name in "${names[@]}"; do
  for p in $PATHS; do
    applies "$name" "$p" || continue
    mean() { tr ' ' '\n' | awk 'NF { s += $1; n++ } END { printf "%.0f", s / n }'; }
    cpu=$(tr ' ' '\n' <<<"${CPUS[$name$p]}" | awk 'NF { s += $1; n++ } END { printf "%.4f", s / n }')
    printf '  %-10s %-9s %8s req/s  gateway CPU %s ms/request  (runs:%s)\n' "$name" "$p" "$(mean <<<"${RATES[$name$p]}")" "$cpu" "${RATES[$name$p]}"
  done
done
echo "resident memory at the end (peak):"
for name in "${names[@]}"; do
  # shellcheck disable=SC2046 # the process and its children (nginx's worker)
  cat $(for q in "${PID[$name]}" $(pgrep -P "${PID[$name]}" || true); do echo "/proc/$q/status"; done) 2>/dev/null |
    awk -v n="$name" '/^VmRSS/ { r += $2 } /^VmHWM/ { h += $2 } END { printf "  %-10s %4.0f MiB (%4.0f MiB)\n", n, r / 1024, h / 1024 }'
done
if [[ ${#RATIOS[@]} -eq 0 ]]; then
  for name in "${names[@]}"; do
    [[ $name == "${SUBJECTS[0]%%=*}" ]] || RATIOS+=("$name=${SUBJECTS[0]%%=*}")
  done
fi
if [[ ${#RATIOS[@]} -gt 0 ]]; then
  echo "the median of the rounds' ratios (req/s; CPU per request):"
  for pair in "${RATIOS[@]}"; do
    name=${pair%%=*}
    base=${pair#*=}
    [[ -n ${PID[$name]:-} && -n ${PID[$base]:-} ]] || { echo "  $pair: no such subjects" >&2; continue; }
    for p in $PATHS; do
      applies "$name" "$p" && applies "$base" "$p" || continue
      ratios=
      for r in $(seq $((SKIP + 1)) "$ROUNDS"); do
        ratios+="${ROUND_RATE[$r $name$p]} ${ROUND_RATE[$r $base$p]} ${ROUND_CPU[$r $name$p]} ${ROUND_CPU[$r $base$p]}"$'\n'
      done
      awk -v n="$name" -v b="$base" -v p="$p" '
        function median(a, k,   i, j, t) {
          for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j > 0 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
          return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
        }
        NF == 4 && $2 > 0 && $4 > 0 { k++; q[k] = $1 / $2; c[k] = $3 / $4 }
        END { if (k) printf "  %-21s %-9s %+6.1f %% req/s  %+6.1f %% CPU per request  (%d rounds)\n", n " vs " b, p, (median(q, k) - 1) * 100, (median(c, k) - 1) * 100, k }' <<<"$ratios"
    done
  done
fi
if [[ -n $PROFILE_DIR ]]; then
  echo "profiles (from the first round on):"
  for name in "${names[@]}"; do
    java_subject "$name" || continue
    "$JDK/bin/jcmd" "${PID[$name]}" JVMTI.agent_load "$AGENT" "\"stop,file=$PROFILE_DIR/$name.collapsed,collapsed\"" >/dev/null
    echo "${SERVED[$name]:-0}" >"$PROFILE_DIR/$name.requests"
    samples=$(awk '{ s += $NF } END { print s + 0 }' "$PROFILE_DIR/$name.collapsed")
    awk -v n="$name" -v s="$samples" -v r="${SERVED[$name]:-0}" -v d="$PROFILE_DIR" \
      'BEGIN { printf "  %-10s %8d samples, %9d requests: %.1f samples per 1,000 requests (%s/%s.collapsed)\n", n, s, r, r ? s * 1000 / r : 0, d, n }'
  done
fi
if [[ -f $WORK/otlp.log ]]; then echo "OTLP sink: $(tail -1 "$WORK/otlp.log")"; fi

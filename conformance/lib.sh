# Sourced by the conformance scripts (bash): a JDK 25, the gateway's jar, a test certificate, the
# conformance upstream and gateways started on port 0 (the port read from what they print, so the
# socket stays theirs from bind to close).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONF="$ROOT/conformance"
# shellcheck source=../.mvn/find-jdk.sh
. "$ROOT/.mvn/find-jdk.sh"
sluice_use_jdk
APP_JAR="$ROOT/sluice-app/target/sluice.jar"
WORK="${SLUICE_CONFORMANCE_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/sluice-conformance.XXXXXX")}"
mkdir -p "$WORK"
PIDS=()

cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT

die() {
  printf 'conformance: %s\n' "$*" >&2
  exit 2
}

# Sets ENGINES, the engines a suite judges: every one, or those `--engines "..."` names (its only argument).
engines_from_args() {
  ENGINES="virtual platform reactive"
  while [ $# -gt 0 ]; do
    case "$1" in
      --engines) ENGINES="$2"; shift 2 ;;
      *) die "unknown argument $1" ;;
    esac
  done
}

# Builds the gateway when its jar is missing (./sluice builds it when sources changed).
need_jar() {
  if [ ! -f "$APP_JAR" ]; then
    (cd "$ROOT" && ./mvnw -B -ntp -q -DskipTests -Dspotless.check.skip=true -pl sluice-app -am package) ||
      die "building the gateway failed"
  fi
}

# Waits up to 60 s for a line matching $2 (an extended regex) in file $1, then prints the first match.
await_line() {
  local file="$1" pattern="$2" pid="$3" i
  for i in $(seq 1 600); do
    if grep -E -m 1 -o "$pattern" "$file" 2>/dev/null; then
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || { cat "$file" >&2; die "process $pid ended before printing /$pattern/"; }
    sleep 0.1
  done
  cat "$file" >&2
  die "no /$pattern/ in $file within 60 s"
}

# Starts the conformance upstream; sets UPSTREAM_PORT.
start_upstream() {
  python3 "$CONF/upstream.py" >"$WORK/upstream.out" 2>&1 &
  PIDS+=("$!")
  UPSTREAM_PORT="$(await_line "$WORK/upstream.out" 'PORT [0-9]+' "$!" | cut -d' ' -f2)"
}

# A self-signed certificate for localhost/127.0.0.1 made now: $WORK/cert.pem, $WORK/key.pem.
make_certificate() {
  [ -f "$WORK/cert.pem" ] && return 0
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
    -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
    -keyout "$WORK/key.pem" -out "$WORK/cert.pem" >/dev/null 2>&1 || die "openssl could not make a certificate"
}

# Writes a configuration (proxy every path to the upstream) to $WORK/$1.yaml; $2 = tls or plain.
write_config() {
  local name="$1" kind="$2" tls=""
  if [ "$kind" = tls ]; then
    make_certificate
    tls="  tls: { certificate: \"$WORK/cert.pem\", key: \"$WORK/key.pem\" }"
  fi
  cat >"$WORK/$name.yaml" <<YAML
server:
  host: 127.0.0.1
  port: 0
$tls
upstreams:
  web: { url: "http://127.0.0.1:$UPSTREAM_PORT" }
routes:
  - id: all
    match: { path: "/**" }
    proxy: { upstream: web }
YAML
}

# Starts a gateway (engine $1, configuration $2) with its log in $3; sets GATEWAY_PID, GATEWAY_PORT.
start_gateway() {
  local engine="$1" config="$2" log="$3"
  # shellcheck disable=SC2086 # the launcher's default flags, as a user runs it
  "$JAVA_HOME/bin/java" -XX:+UseParallelGC -Xms32m -Xmx96m --sun-misc-unsafe-memory-access=allow \
    -jar "$APP_JAR" run -c "$config" --engine "$engine" >"$log" 2>&1 &
  GATEWAY_PID="$!"
  PIDS+=("$GATEWAY_PID")
  GATEWAY_PORT="$(await_line "$log" 'listening on 127\.0\.0\.1:[0-9]+' "$GATEWAY_PID" | sed 's/.*://')"
}

stop_gateway() {
  kill "$GATEWAY_PID" 2>/dev/null || true
  wait "$GATEWAY_PID" 2>/dev/null || true
}

#!/usr/bin/env bash
# grpcurl (github.com/fullstorydev/grpcurl, an independent gRPC client in Go) calling a real gRPC
# server (conformance/grpc_upstream.py, Python grpcio) THROUGH the gateway in every engine, over h2c
# to the gateway and h2c to the service: the service listed by server reflection (a bidi stream,
# itself proxied), its unary method and its server-streaming method. Each answer must equal, byte
# for byte, what grpcurl gets from the service directly, and that must be the expected one.
#
#   conformance/grpcurl.sh [--engines "virtual platform reactive"]
#
# Needs grpcurl on PATH or in ~/go/bin (go install github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.4)
# and Python grpcio with grpcio-reflection (pip install grpcio grpcio-reflection).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

engines_from_args "$@"
GRPCURL="$(command -v grpcurl || true)"
[ -n "$GRPCURL" ] || GRPCURL="$HOME/go/bin/grpcurl"
[ -x "$GRPCURL" ] || die "grpcurl is missing: go install github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.4"
python3 -c 'import grpc, grpc_reflection' 2>/dev/null || die "Python grpcio is missing: pip install grpcio grpcio-reflection"
SERVICE=sluice.conformance.Greeter

need_jar
python3 "$CONF/grpc_upstream.py" >"$WORK/grpc-upstream.out" 2>&1 &
PIDS+=("$!")
GRPC_PORT="$(await_line "$WORK/grpc-upstream.out" 'PORT [0-9]+' "$!" | cut -d' ' -f2)"

# The three calls against $1 (host:port), each answer in $2.{list,say,count}.
calls() {
  local target="$1" out="$2"
  "$GRPCURL" -plaintext -max-time 10 "$target" list >"$out.list" 2>&1 || return 1
  "$GRPCURL" -plaintext -max-time 10 -d '{"name":"sluice"}' "$target" "$SERVICE/Say" >"$out.say" 2>&1 || return 1
  "$GRPCURL" -plaintext -max-time 10 -d '{"name":"m","count":50}' "$target" "$SERVICE/Count" >"$out.count" 2>&1 ||
    return 1
}

calls "127.0.0.1:$GRPC_PORT" "$WORK/direct" || { cat "$WORK"/direct.* >&2; die "grpcurl failed against the service itself"; }
grep -qx "$SERVICE" "$WORK/direct.list" || die "the service's reflection does not list $SERVICE"
grep -q '"message": "hello sluice"' "$WORK/direct.say" || die "unexpected direct answer to Say"
[ "$(grep -c '"message": "m"' "$WORK/direct.count")" = 50 ] || die "the direct Count stream is not 50 messages"

status=0
passed=0
failed=0
for engine in $ENGINES; do
  cat >"$WORK/grpc-$engine.yaml" <<YAML
server: { host: 127.0.0.1, port: 0 }
upstreams:
  greeter: { url: "http://127.0.0.1:$GRPC_PORT", protocol: h2c }
routes:
  - id: grpc
    match: { path: "/**" }
    proxy: { upstream: greeter }
YAML
  start_gateway "$engine" "$WORK/grpc-$engine.yaml" "$WORK/grpc-$engine.log"
  verdict=ok
  if ! calls "127.0.0.1:$GATEWAY_PORT" "$WORK/$engine"; then
    verdict="a call failed"
  else
    for call in list say count; do
      cmp -s "$WORK/direct.$call" "$WORK/$engine.$call" || verdict="$call differs from the direct answer"
    done
  fi
  stop_gateway
  if [ "$verdict" = ok ]; then
    echo "grpcurl $engine: ok (reflection list, unary Say, server-streaming Count of 50)"
    passed=$((passed + 1))
  else
    echo "grpcurl $engine: FAILED: $verdict (answers and the gateway's log in $WORK)"
    status=1
    failed=$((failed + 1))
  fi
done
# One line for the suite, in the form conformance/run and CI read as a test count.
echo "grpcurl: $passed passed, $failed failed"
exit "$status"

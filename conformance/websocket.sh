#!/usr/bin/env bash
# A WebSocket client that is not ours (the Python `websockets` library) talking to a WebSocket
# server that is not ours (the same library, conformance/ws_upstream.py) THROUGH the gateway in every
# engine, over ws:// and wss:// (a certificate made here): the subprotocol and permessage-deflate
# agreed end to end, text, a 3 MB binary message, a fragmented message, a ping, the upstream's close
# code and reason, and the client's. Each conversation's outcome must equal, line for line, what the
# client gets from the server directly, and that must be the expected one.
#
#   conformance/websocket.sh [--engines "virtual platform reactive"]
#
# Needs Python websockets (pip install websockets).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

engines_from_args "$@"
python3 -c 'import websockets' 2>/dev/null || die "Python websockets is missing: pip install websockets"

need_jar
make_certificate
python3 "$CONF/ws_upstream.py" >"$WORK/ws-upstream.out" 2>&1 &
PIDS+=("$!")
WS_PORT="$(await_line "$WORK/ws-upstream.out" 'PORT [0-9]+' "$!" | cut -d' ' -f2)"

python3 "$CONF/ws_client.py" "ws://127.0.0.1:$WS_PORT/chat" >"$WORK/direct.ws" 2>&1 ||
  { cat "$WORK/direct.ws" >&2; die "the client failed against the server itself"; }
cat >"$WORK/expected.ws" <<'TEXT'
subprotocol chat.v2
extensions permessage-deflate
text hello
fragmented whole
ping answered
upstream close 4001 bye from upstream
client close 4002 bye from client
TEXT
grep -v '^binary ' "$WORK/direct.ws" | cmp -s - "$WORK/expected.ws" || {
  diff "$WORK/expected.ws" "$WORK/direct.ws" >&2 || true
  die "unexpected direct conversation"
}
grep -q '^binary 3000000 [0-9a-f]* same$' "$WORK/direct.ws" || die "the direct 3 MB echo differs"

status=0
passed=0
failed=0
for engine in $ENGINES; do
  for scheme in ws wss; do
    tls=""
    [ "$scheme" = wss ] && tls="  tls: { certificate: \"$WORK/cert.pem\", key: \"$WORK/key.pem\" }"
    cat >"$WORK/ws-$engine-$scheme.yaml" <<YAML
server:
  host: 127.0.0.1
  port: 0
$tls
upstreams:
  chat: { url: "http://127.0.0.1:$WS_PORT" }
routes:
  - id: chat
    match: { path: "/chat" }
    proxy: { upstream: chat }
YAML
    start_gateway "$engine" "$WORK/ws-$engine-$scheme.yaml" "$WORK/ws-$engine-$scheme.log"
    ca=()
    [ "$scheme" = wss ] && ca=("$WORK/cert.pem")
    verdict=ok
    if ! python3 "$CONF/ws_client.py" "$scheme://127.0.0.1:$GATEWAY_PORT/chat" "${ca[@]}" \
      >"$WORK/$engine-$scheme.ws" 2>&1; then
      verdict="the conversation failed"
    elif ! cmp -s "$WORK/direct.ws" "$WORK/$engine-$scheme.ws"; then
      verdict="it differs from the direct conversation"
    fi
    stop_gateway
    if [ "$verdict" = ok ]; then
      echo "websocket $engine $scheme: ok (subprotocol, deflate, text, 3 MB binary, fragments, ping, both closes)"
      passed=$((passed + 1))
    else
      echo "websocket $engine $scheme: FAILED: $verdict (conversations and the gateway's log in $WORK)"
      diff "$WORK/direct.ws" "$WORK/$engine-$scheme.ws" | head -20 || true
      status=1
      failed=$((failed + 1))
    fi
  done
done
# One line for the suite, in the form conformance/run and CI read as a test count.
echo "websocket: $passed passed, $failed failed"
exit "$status"

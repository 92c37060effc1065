#!/usr/bin/env bash
# h2spec (github.com/summerwind/h2spec 2.2.1, 145 cases) against every engine, on h2c (prior knowledge)
# and on TLS (h2 by ALPN). A case that fails and is not in h2spec-expected.txt fails the run, and so
# does a listed case that now passes (the list says what is still wrong, never more). The gateway's
# log of each run is checked too: no stack trace and no more than a few lines for 145 protocol
# errors (docs/ENGINE-CONTRACT.md, "Logs").
#
#   conformance/h2spec.sh [--engines "virtual platform reactive"] [--transports "h2c tls"]
#
# Needs h2spec on PATH or in ~/go/bin (go install github.com/summerwind/h2spec/cmd/h2spec@v2.2.1+incompatible).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

ENGINES="virtual platform reactive"
TRANSPORTS="h2c tls"
while [ $# -gt 0 ]; do
  case "$1" in
    --engines) ENGINES="$2"; shift 2 ;;
    --transports) TRANSPORTS="$2"; shift 2 ;;
    *) die "unknown argument $1" ;;
  esac
done
H2SPEC="$(command -v h2spec || true)"
[ -n "$H2SPEC" ] || H2SPEC="$HOME/go/bin/h2spec"
[ -x "$H2SPEC" ] || die "h2spec is missing: go install github.com/summerwind/h2spec/cmd/h2spec@v2.2.1+incompatible"
# The most lines a gateway may log for a whole h2spec run: its start and stop, and a line per kind
# of protocol error at most once a minute.
MAX_LOG_LINES=12

need_jar
start_upstream
status=0
passed=0
failed=0
for engine in $ENGINES; do
  for transport in $TRANSPORTS; do
    kind=plain
    flags=()
    if [ "$transport" = tls ]; then
      kind=tls
      flags=(-t -k)
    fi
    name="$engine-$transport"
    write_config "$name" "$kind"
    start_gateway "$engine" "$WORK/$name.yaml" "$WORK/$name.log"
    "$H2SPEC" -h 127.0.0.1 -p "$GATEWAY_PORT" "${flags[@]}" --timeout 2 -j "$WORK/$name.xml" >"$WORK/$name.out" 2>&1 || true
    stop_gateway
    python3 "$CONF/h2spec-verdict.py" "$WORK/$name.xml" "$CONF/h2spec-expected.txt" "$engine" "$transport" \
      "$WORK/$name.log" "$MAX_LOG_LINES" && passed=$((passed + 1)) || { status=1; failed=$((failed + 1)); }
  done
done
[ "$status" = 0 ] || echo "h2spec: FAILED; reports and gateway logs in $WORK" >&2
# One line a run of the suite per engine and transport, in the form CI reads as a test count.
echo "h2spec: $passed passed, $failed failed"
exit "$status"

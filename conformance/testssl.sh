#!/usr/bin/env bash
# testssl.sh (the Debian package's testssl) against the TLS listener of every engine: protocols,
# ciphers, server defaults, renegotiation and the known vulnerabilities, offline (a self-signed
# certificate for 127.0.0.1, no OCSP/CRL/DNS look-ups). A finding of severity MEDIUM or above fails
# the run unless its id is in testssl-accepted.txt (the test certificate's own findings, each with
# why). The gateway's log of each run is checked too: no stack trace and no more than a few lines
# (docs/ENGINE-CONTRACT.md, "Logs").
#
#   conformance/testssl.sh [--engines "virtual platform reactive"]
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

engines_from_args "$@"
TESTSSL="$(command -v testssl || command -v testssl.sh || true)"
[ -n "$TESTSSL" ] || die "testssl is missing: apt-get install testssl.sh"
# Its start and stop, and a line per kind of client protocol error at most once a minute.
MAX_LOG_LINES=12

need_jar
start_upstream
status=0
passed=0
failed=0
for engine in $ENGINES; do
  name="$engine-testssl"
  write_config "$name" tls
  start_gateway "$engine" "$WORK/$name.yaml" "$WORK/$name.log"
  started=$(date +%s)
  rm -f "$WORK/$name.json"
  # --fast: one openssl run for the cipher list; protocols (-p), server defaults (-S), preferences
  # (-P), renegotiation and every vulnerability (-U) still run
  "$TESTSSL" --quiet --warnings off --color 0 --fast --ip 127.0.0.1 --nodns none \
    --openssl-timeout 5 --connect-timeout 5 -p -S -P -U -R \
    --severity MEDIUM --jsonfile "$WORK/$name.json" "127.0.0.1:$GATEWAY_PORT" >"$WORK/$name.out" 2>&1 || true
  stop_gateway
  python3 - "$WORK/$name.json" "$CONF/testssl-accepted.txt" "$engine" "$WORK/$name.log" "$MAX_LOG_LINES" \
    "$(($(date +%s) - started))" <<'PY' && passed=$((passed + 1)) || { status=1; failed=$((failed + 1)); }
import json, re, sys
report, accepted_file, engine, log, max_lines, took = sys.argv[1:7]
accepted = {l.split()[0] for l in open(accepted_file) if l.strip() and not l.startswith("#")}
try:
    findings = json.load(open(report))
except Exception as e:
    print(f"testssl {engine}: no report ({e})"); sys.exit(1)
bad = [f for f in findings if f.get("severity") in ("MEDIUM", "HIGH", "CRITICAL") and f["id"] not in accepted]
for f in bad:
    print(f"testssl {engine}: {f['severity']} {f['id']}: {f.get('finding', '')}")
lines = open(log, errors="replace").read().splitlines()
traces = [l for l in lines if re.match(r"\s+at |Caused by:|\S+(Exception|Error)(:|$)", l)]
if traces:
    print(f"testssl {engine}: the gateway logged stack traces ({len(traces)} lines), first: {traces[0].strip()}")
if len(lines) > int(max_lines):
    print(f"testssl {engine}: the gateway logged {len(lines)} lines (at most {max_lines})")
print(f"testssl {engine}: {len(bad)} findings MEDIUM or above not accepted, {len(lines)} log lines, {took} s")
sys.exit(1 if bad or traces or len(lines) > int(max_lines) else 0)
PY
done
[ "$status" = 0 ] || echo "testssl: FAILED; reports and gateway logs in $WORK" >&2
# One line for the run per engine, in the form CI reads as a test count.
echo "testssl: $passed passed, $failed failed"
exit "$status"

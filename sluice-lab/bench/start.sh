#!/usr/bin/env bash
# Start to the first good answer (issue 33, goal 5): starts COMMAND, polls GET PATH on 127.0.0.1:PORT
# every 2 ms (a raw HTTP/1.1 request on a new connection) until it answers 200, prints the
# milliseconds from the start of COMMAND to that answer, then stops COMMAND (SIGTERM) and waits for it.
# The session-24 method (start.py), kept here. A start alone moves by tens of percent on a busy
# machine: compare alternated pairs, never two separate series.
#
# usage: start.sh PORT PATH COMMAND...
#   e.g. start.sh 18700 /hello java -XX:AOTCache=a.aot -jar sluice-app/target/sluice.jar run -c gw.yaml
# Gives up (prints "timeout", exit 1) after 30 s. Loopback only.
set -euo pipefail
[[ $# -ge 3 ]] || { sed -n '2,10p' "$0" >&2; exit 2; }
exec python3 - "$@" <<'PY'
import signal, socket, subprocess, sys, time
port, path, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
request = ("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % path).encode()
t0 = time.monotonic()
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
ok = False
while time.monotonic() - t0 < 30:
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=1)
        s.sendall(request)
        head = s.recv(100)
        s.close()
        if head.startswith(b"HTTP/1.1 200"):
            ok = True
            break
    except OSError:
        pass
    time.sleep(0.002)
ms = (time.monotonic() - t0) * 1000
p.send_signal(signal.SIGTERM)
p.wait()
print("%.0f" % ms if ok else "timeout")
sys.exit(0 if ok else 1)
PY

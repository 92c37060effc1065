#!/usr/bin/env python3
"""The conformance runs' upstream: answers every request 200 with a small JSON body after reading
the whole request body (Content-Length or chunked). Binds port 0 on 127.0.0.1, keeps it bound, and
prints "PORT <n>" once listening."""
import http.server
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return
                self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)

    def _answer(self):
        self._body()
        body = b'{"ok":true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = do_PATCH = _answer

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # h2spec's bursts of connections, never refused by a short backlog

    def handle_error(self, request, client_address):
        pass  # a peer that resets (h2spec's cases end connections at will) is no finding of ours


server = Server(("127.0.0.1", 0), Handler)
print("PORT", server.server_address[1], flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    sys.exit(0)

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The check server of the connectivity kernel tests (Tests/KernelTests/ConnectivityTests.swift).

Serves GET requests in the test's peer namespace only, as told by the first word of
MODE_FILE, read at each request, so a test switches behaviour without a restart:

  full      200 with the expected body, b"pathd-ok\\n"
  redirect  302 to http://login.example/ (a captive portal)
  other     200 with a login page instead of the expected body
  trickle   200 announcing 30 bytes, then one byte a second (past the probe's timeout)
  long      200 with 2 MiB of b"p", past the probe's 1 MiB body limit

Every accepted connection appends one line to LOG_FILE (the tests count them), and a
request through it as a proxy (absolute URI) is logged with "proxied". READY_FILE is
written once the socket listens. Stops on SIGTERM, or by itself after --lifetime seconds.
"""
import argparse
import http.server
import signal
import socketserver
import sys
import threading
import time

EXPECTED = b"pathd-ok\n"
LOGIN = b"<html><body>Hotel Wi-Fi: please log in</body></html>\n"
LONG = 2 << 20


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mode-file", required=True)
    parser.add_argument("--log-file", required=True)
    parser.add_argument("--ready-file", required=True)
    parser.add_argument("--lifetime", type=float, default=300)
    options = parser.parse_args()
    lock = threading.Lock()

    def log(line):
        with lock, open(options.log_file, "a") as log_file:
            log_file.write(line + "\n")

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path.startswith("http://"):
                log("proxied " + self.path)
            with open(options.mode_file) as mode_file:
                mode = mode_file.read().split()[0]
            if mode == "redirect":
                self.send_response(302)
                self.send_header("Location", "http://login.example/")
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif mode in ("full", "other"):
                body = EXPECTED if mode == "full" else LOGIN
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif mode == "trickle":
                self.send_response(200)
                self.send_header("Content-Length", "30")
                self.end_headers()
                try:
                    for _ in range(30):
                        self.wfile.write(b"p")
                        self.wfile.flush()
                        time.sleep(1)  # the behaviour under test: a body slower than the timeout
                except (BrokenPipeError, ConnectionResetError):
                    pass
            elif mode == "long":
                self.send_response(200)
                self.send_header("Content-Length", str(LONG))
                self.end_headers()
                try:
                    for _ in range(LONG // 65536):
                        self.wfile.write(b"p" * 65536)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the probe stops reading at its limit
            else:
                self.send_error(500, "unknown mode " + mode)

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True

        def verify_request(self, request, client_address):
            log("connection from %s" % client_address[0])
            return True

    server = Server((options.address, options.port), Handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    stopper = threading.Timer(options.lifetime, server.shutdown)
    stopper.daemon = True
    stopper.start()
    with open(options.ready_file, "w") as ready:
        ready.write("listening\n")
    server.serve_forever()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A minimal SSE server for the fault tests, run inside a network namespace.

usage: sse_server.py HOST PORT COUNT INTERVAL_MS

GET /sse streams events id 1..COUNT ("data: event N"), one every INTERVAL_MS, resuming
after Last-Event-ID; after the last event it holds the connection open with a comment every
second. One thread per connection; the body ends when the connection closes (HTTP/1.0).
"""
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOST, PORT, COUNT, INTERVAL = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]) / 1000.0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if not self.path.startswith("/sse"):
            self.send_error(404)
            return
        last = self.headers.get("Last-Event-ID")
        start = int(last) + 1 if last and last.isdigit() else 1
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        try:
            for i in range(start, COUNT + 1):
                self.wfile.write(f"id: {i}\ndata: event {i}\n\n".encode())
                self.wfile.flush()
                time.sleep(INTERVAL)
            for _ in range(120):
                self.wfile.write(b": idle\n\n")
                self.wfile.flush()
                time.sleep(1)
        except (BrokenPipeError, ConnectionResetError):
            pass


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer.allow_reuse_address = True
ThreadingHTTPServer((HOST, PORT), Handler).serve_forever()

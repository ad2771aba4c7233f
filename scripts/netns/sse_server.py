#!/usr/bin/env python3
"""A minimal SSE server for the fault tests, run inside a network namespace.

usage: sse_server.py HOST PORT COUNT INTERVAL_MS [--pad BYTES] [--drip-ms MS] [--rst]
(options: see stream_common.py)

GET /sse streams events id 1..COUNT ("data: event N"), one every INTERVAL_MS, resuming
after Last-Event-ID; after the last event it holds the connection open with a comment every
second. One thread per connection; the body ends when the connection closes (HTTP/1.0).
"""
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import time

import stream_common

ARGS = stream_common.parse_args("SSE server for the fault tests")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if not self.path.startswith("/sse"):
            self.send_error(404)
            return
        stream_common.prepare(ARGS, self.connection)
        last = self.headers.get("Last-Event-ID")
        start = int(last) + 1 if last and last.isdigit() else 1
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.flush()
        try:
            for i in range(start, ARGS.count + 1):
                event = f"id: {i}\ndata: {stream_common.payload(ARGS, i)}\n\n".encode()
                stream_common.send(ARGS, self.connection, event)
                time.sleep(ARGS.interval_ms / 1000.0)
            for _ in range(120):
                self.connection.sendall(b": idle\n\n")
                time.sleep(1)
        except OSError:
            pass


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer.allow_reuse_address = True
server = ThreadingHTTPServer((ARGS.host, ARGS.port), Handler)
stream_common.announce_ready()
server.serve_forever()

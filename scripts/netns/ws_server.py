#!/usr/bin/env python3
"""A minimal RFC 6455 WebSocket server for the fault tests, run inside a network namespace.
Python standard library only, written for these tests (no third-party code).

usage: ws_server.py HOST PORT COUNT INTERVAL_MS [--pad BYTES] [--drip-ms MS] [--rst]
(options: see stream_common.py)

GET /ws[?after=N] upgrades (RFC 6455 §4.2: Sec-WebSocket-Key → Sec-WebSocket-Accept) and
sends text messages "N|event N" for N = after+1 .. COUNT, one every INTERVAL_MS; then it
holds the connection open (--drip-ms drips the frames, not the handshake, as the SSE server
drips events, not headers). The client's frames are unmasked (§5.3); a ping gets a pong with
its payload (§5.5.2-3), a close gets a close echoing the code (§5.5.1), then TCP closes.
One thread per connection, plus one reading the client's frames.
"""
import base64
import hashlib
import socketserver
import struct
import threading
import time
import urllib.parse

import stream_common

ARGS = stream_common.parse_args("WebSocket server for the fault tests")
GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 §1.3


def frame(opcode, payload):
    """A final, unmasked server frame (§5.2)."""
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 127, n)
    return head + payload


class Connection:
    def __init__(self, sock, buffered):
        self.sock = sock
        self.buffer = bytearray(buffered)
        self.lock = threading.Lock()  # one frame at a time on the wire
        self.done = threading.Event()
        self.close_sent = False

    def recv_exact(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("eof")
            self.buffer += chunk
        data = bytes(self.buffer[:n])
        del self.buffer[:n]
        return data

    def write(self, opcode, payload):
        with self.lock:
            if self.close_sent:
                return
            if opcode == 0x8:
                self.close_sent = True
            stream_common.send(ARGS, self.sock, frame(opcode, payload))

    def read_frames(self):
        """The client's frames: masked (§5.3); control frames answered, data ignored."""
        try:
            while not self.done.is_set():
                b0, b1 = self.recv_exact(2)
                opcode, n = b0 & 0x0F, b1 & 0x7F
                if n == 126:
                    n = struct.unpack("!H", self.recv_exact(2))[0]
                elif n == 127:
                    n = struct.unpack("!Q", self.recv_exact(8))[0]
                mask = self.recv_exact(4) if b1 & 0x80 else b"\0\0\0\0"
                data = bytes(c ^ mask[i % 4] for i, c in enumerate(self.recv_exact(n)))
                if opcode == 0x9:
                    self.write(0xA, data)
                elif opcode == 0x8:
                    self.write(0x8, data[:2])
                    break
        except OSError:
            pass
        self.done.set()
        try:
            self.sock.close()
        except OSError:
            pass


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        stream_common.prepare(ARGS, sock)
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk or len(head) > 65536:
                return
            head += chunk
        text, rest = head.split(b"\r\n\r\n", 1)
        lines = text.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        key = headers.get("sec-websocket-key")
        url = urllib.parse.urlsplit(target)
        if method != "GET" or not url.path.startswith("/ws") or not key or \
                "websocket" not in headers.get("upgrade", "").lower():
            sock.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        after = urllib.parse.parse_qs(url.query).get("after", ["0"])[0]
        start = int(after) + 1 if after.isdigit() else 1
        accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        sock.sendall((
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())
        conn = Connection(sock, rest)
        threading.Thread(target=conn.read_frames, daemon=True).start()
        try:
            for i in range(start, ARGS.count + 1):
                if conn.done.is_set():
                    return
                conn.write(0x1, f"{i}|{stream_common.payload(ARGS, i)}".encode())
                time.sleep(ARGS.interval_ms / 1000.0)
            conn.done.wait(120)
        except OSError:
            pass
        conn.done.set()


socketserver.ThreadingTCPServer.daemon_threads = True
socketserver.ThreadingTCPServer.allow_reuse_address = True
server = socketserver.ThreadingTCPServer((ARGS.host, ARGS.port), Handler)
stream_common.announce_ready()
server.serve_forever()

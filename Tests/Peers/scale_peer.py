"""Server for the `scale` benchmark: thousands of idle SSE and WebSocket streams in one process.

It runs in its own process so that its memory never counts in the client's figures. Plain
asyncio protocols (no per-connection task, no framework) keep its cost per connection small
and let one thread answer ten thousand handshakes in a few seconds.

Paths:
  /sse     `200 text/event-stream`, chunked; events only when the benchmark asks for them.
  /ws      a WebSocket (RFC 6455): answers pings with pongs and a close with a close; ignores
           messages; sends text messages when asked. permessage-deflate (RFC 7692) is agreed
           when offered: the server compresses with the window the client allows
           (server_max_window_bits, else --server-window), resets its compressor per message
           when server_no_context_takeover was offered, and echoes client_no_context_takeover.

Commands, one per line on stdin (each answered with one line on stdout):
  trickle MS SIZE   every connection gets one event (SSE) or text message (WebSocket) of SIZE
                    bytes every MS milliseconds, spread evenly over time -> `OK`
  heartbeat MS      every SSE connection gets a `:` comment every MS milliseconds -> `OK`
  quiet             stops the trickle and the heartbeats -> `OK`
  stats             -> `STATS open=N accepted=N sent=N cpu=SECONDS`
The launch contract is peer_common's (PORT line, TLS options, exit at end of stdin).
"""

import asyncio
import base64
import hashlib
import json
import os
import resource
import sys
import zlib

import peer_common

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TICK = 0.01


def raise_descriptor_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def payload(size, serial):
    """JSON-looking text of exactly `size` bytes (compresses like a real feed)."""
    head = json.dumps({"seq": serial, "type": "tick", "symbol": "ABCD", "price": 100 + serial % 37, "text": ""})
    filler = "lorem ipsum dolor sit amet " * (size // 27 + 1)
    body = head[:-2] + filler[: max(0, size - len(head))] + '"}'
    return body[:size] if len(body) > size else body


class Deflater:
    """permessage-deflate's sending half (RFC 7692 §7.2.1)."""

    def __init__(self, window_bits, no_context_takeover):
        self.window_bits = max(9, window_bits)
        self.no_context_takeover = no_context_takeover
        self.compressor = None

    def compress(self, data):
        if self.compressor is None or self.no_context_takeover:
            self.compressor = zlib.compressobj(6, zlib.DEFLATED, -self.window_bits, 8)
        out = self.compressor.compress(data) + self.compressor.flush(zlib.Z_SYNC_FLUSH)
        return out[:-4] if out.endswith(b"\x00\x00\xff\xff") else out


def negotiate_deflate(header, default_window):
    """The response element for the first permessage-deflate offer, and the deflater."""
    for offer in header.split(","):
        parts = [p.strip() for p in offer.split(";")]
        if parts[0].lower() != "permessage-deflate":
            continue
        params = {}
        for p in parts[1:]:
            name, _, value = p.partition("=")
            params[name.strip().lower()] = value.strip().strip('"') or None
        answer = ["permessage-deflate"]
        window = default_window
        if "server_max_window_bits" in params:
            window = int(params["server_max_window_bits"] or 15)
            answer.append(f"server_max_window_bits={window}")
        no_takeover = "server_no_context_takeover" in params
        if no_takeover:
            answer.append("server_no_context_takeover")
        if "client_no_context_takeover" in params:
            answer.append("client_no_context_takeover")
        return "; ".join(answer), Deflater(window, no_takeover)
    return None, None


def frame(opcode, data, rsv1=False):
    first = 0x80 | opcode | (0x40 if rsv1 else 0)
    n = len(data)
    if n < 126:
        return bytes([first, n]) + data
    if n < 65536:
        return bytes([first, 126]) + n.to_bytes(2, "big") + data
    return bytes([first, 127]) + n.to_bytes(8, "big") + data


class Peer:
    def __init__(self, default_window):
        self.default_window = default_window
        self.connections = {}
        self.order = None  # list(self.connections), rebuilt after a change
        self.accepted = 0
        self.sent = 0
        self.trickle = None  # (interval seconds, size)
        self.heartbeat = None  # interval seconds
        self.cursor = 0
        self.hb_cursor = 0
        self.credit = 0.0
        self.hb_credit = 0.0
        self.serial = 0
        self.messages = {}

    def message(self, size):
        if size not in self.messages:
            self.messages[size] = payload(size, 1).encode()
        return self.messages[size]

    async def pump(self):
        """Spreads the trickle and the heartbeats evenly over each interval."""
        loop = asyncio.get_running_loop()
        last = loop.time()
        while True:
            await asyncio.sleep(TICK)
            # Credit by the time that really passed: a sleep overshoots, more so under load.
            now = loop.time()
            elapsed, last = now - last, now
            if self.order is None:
                self.order = list(self.connections)
            open_ones = self.order
            if not open_ones:
                continue
            if self.trickle:
                interval, size = self.trickle
                self.credit += len(open_ones) * elapsed / interval
                data = self.message(size)
                while self.credit >= 1:
                    self.credit -= 1
                    self.cursor = (self.cursor + 1) % len(open_ones)
                    self.serial += 1
                    open_ones[self.cursor].send_event(data, self.serial)
                    self.sent += 1
            if self.heartbeat:
                self.hb_credit += len(open_ones) * elapsed / self.heartbeat
                while self.hb_credit >= 1:
                    self.hb_credit -= 1
                    self.hb_cursor = (self.hb_cursor + 1) % len(open_ones)
                    open_ones[self.hb_cursor].send_comment()

    def command(self, line):
        words = line.split()
        if not words:
            return None
        if words[0] == "trickle":
            self.trickle = (int(words[1]) / 1000, int(words[2]))
            self.credit = 0.0
        elif words[0] == "heartbeat":
            self.heartbeat = int(words[1]) / 1000
            self.hb_credit = 0.0
        elif words[0] == "quiet":
            self.trickle = None
            self.heartbeat = None
        elif words[0] == "stats":
            usage = resource.getrusage(resource.RUSAGE_SELF)
            cpu = usage.ru_utime + usage.ru_stime
            return f"STATS open={len(self.connections)} accepted={self.accepted} sent={self.sent} cpu={cpu:.3f}"
        else:
            return f"ERROR unknown command {words[0]}"
        return "OK"


class Connection(asyncio.Protocol):
    def __init__(self, peer):
        self.peer = peer
        self.transport = None
        self.buffer = b""
        self.kind = None  # "sse" or "ws" once the request head is read
        self.deflater = None
        self.listed = False

    def connection_made(self, transport):
        self.transport = transport
        self.peer.accepted += 1

    def connection_lost(self, exc):
        if self.listed:
            del self.peer.connections[self]
            self.peer.order = None
            self.listed = False

    def data_received(self, data):
        self.buffer += data
        if self.kind is None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buffer) > 65536:
                    self.transport.abort()
                return
            head, self.buffer = self.buffer[:end].decode("latin-1"), self.buffer[end + 4 :]
            self.answer(head)
        if self.kind == "ws":
            self.read_frames()

    def answer(self, head):
        lines = head.split("\r\n")
        target = lines[0].split(" ")[1] if len(lines[0].split(" ")) > 2 else "/"
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        path = target.split("?")[0]
        if path == "/ws" and headers.get("upgrade", "").lower() == "websocket":
            self.open_websocket(headers)
        elif path == "/sse":
            self.kind = "sse"
            self.transport.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n"
            )
            self.list()
        else:
            self.transport.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            self.transport.close()

    def open_websocket(self, headers):
        key = headers.get("sec-websocket-key", "").encode()
        accept = base64.b64encode(hashlib.sha1(key + GUID).digest()).decode()
        extension, self.deflater = negotiate_deflate(headers.get("sec-websocket-extensions", ""), self.peer.default_window)
        response = (
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {accept}\r\n"
        )
        if extension:
            response += f"Sec-WebSocket-Extensions: {extension}\r\n"
        self.transport.write((response + "\r\n").encode())
        self.kind = "ws"
        self.list()

    def list(self):
        self.peer.connections[self] = None
        self.peer.order = None
        self.listed = True

    def read_frames(self):
        buf = self.buffer
        while len(buf) >= 2:
            opcode, length, offset = buf[0] & 0x0F, buf[1] & 0x7F, 2
            if length == 126:
                if len(buf) < 4:
                    break
                length, offset = int.from_bytes(buf[2:4], "big"), 4
            elif length == 127:
                if len(buf) < 10:
                    break
                length, offset = int.from_bytes(buf[2:10], "big"), 10
            masked = buf[1] & 0x80
            end = offset + (4 if masked else 0) + length
            if len(buf) < end:
                break
            body = buf[end - length : end]
            if masked:
                mask = buf[offset : offset + 4]
                body = bytes(b ^ mask[i % 4] for i, b in enumerate(body))
            buf = buf[end:]
            if opcode == 0x9:
                self.transport.write(frame(0xA, body))
            elif opcode == 0x8:
                self.transport.write(frame(0x8, body[:2]))
                self.transport.close()
                break
        self.buffer = buf

    def send_event(self, data, serial):
        if self.transport.is_closing():
            return
        if self.kind == "sse":
            event = b"id: %d\ndata: " % serial + data + b"\n\n"
            self.transport.write(b"%x\r\n" % len(event) + event + b"\r\n")
        elif self.deflater:
            self.transport.write(frame(0x1, self.deflater.compress(data), rsv1=True))
        else:
            self.transport.write(frame(0x1, data))

    def send_comment(self):
        if self.kind == "sse" and not self.transport.is_closing():
            self.transport.write(b"3\r\n:\n\n\r\n")


async def read_commands(peer, stop):
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = await reader.readline()
        if not line:
            stop.set()
            return
        reply = peer.command(line.decode())
        if reply:
            print(reply, flush=True)


def tls_context(args):
    context = peer_common.ssl_context(args)
    if context is not None and os.environ.get("SCALE_PEER_TICKETS"):
        context.num_tickets = int(os.environ["SCALE_PEER_TICKETS"])
    return context


def window_argument(parser):
    parser.add_argument("--server-window", type=int, default=15, help="deflate window unless the client limits it")
    parser.add_argument("--backlog", type=int, default=4096, help="listen queue (asyncio's default is 100)")


async def main():
    args = peer_common.parse_args(__doc__.splitlines()[0], extra=window_argument)
    raise_descriptor_limit()
    peer = Peer(args.server_window)
    sock = peer_common.bind_socket(args.host)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: Connection(peer), sock=sock, ssl=tls_context(args), backlog=args.backlog
    )
    pump = asyncio.create_task(peer.pump())
    stop = asyncio.Event()
    commands = asyncio.create_task(read_commands(peer, stop))
    peer_common.announce(sock)
    await stop.wait()
    pump.cancel()
    commands.cancel()
    server.close()
    for connection in list(peer.connections):
        connection.transport.abort()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)

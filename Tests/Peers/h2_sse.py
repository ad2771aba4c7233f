"""HTTP/2 SSE peer on the `h2` library's connection state machine (the HTTP/2 implementation
Hypercorn is built on), serving HTTP/2 only: with prior knowledge (h2c) on plain TCP, or
through ALPN `h2` when --tls-cert and --tls-key are given.

Paths (query parameters in brackets, defaults after '='):
  /connection [interval=1]
                 one event of type "connection" whose data is the client's address and port
                 as the server saw them ("127.0.0.1:41234": streams on one connection share
                 it), then a ": ping" comment every `interval` seconds, until the client
                 resets the stream or the connection ends.
  /events [count=5, interval=0.05, pad=0, reset=, goaway=]
                 events with ids 1..count, type "tick", data "tick <id>" (and a space and
                 `pad` x's when pad > 0, to fill HTTP/2 flow-control windows), `interval` seconds
                 apart; a request with Last-Event-ID continues after that id. Then the stream
                 ends. reset=K resets the stream after event K (RST_STREAM INTERNAL_ERROR; the
                 connection and its other streams go on); goaway=K sends GOAWAY (NO_ERROR)
                 after event K and closes the connection, cutting every stream on it. Each
                 happens once per server for a given query (a client that repeats the request,
                 with or without Last-Event-ID, is not cut again).
  /slow [delay=5]
                 the response head only after `delay` seconds (a server that takes its time to
                 answer, like a model behind a queue), then one event and the end.
Any other path answers 404.

--max-streams N announces SETTINGS_MAX_CONCURRENT_STREAMS N (default 100) and refuses a
stream beyond it with RST_STREAM REFUSED_STREAM (RFC 9113 §5.1.2).
"""

import asyncio
from urllib.parse import parse_qs, urlsplit

import h2.config
import h2.connection
import h2.events
import h2.exceptions
from h2.errors import ErrorCodes
from h2.settings import SettingCodes

import peer_common


class Connection(h2.connection.H2Connection):
    """Leaves the stream limit to the server below, which refuses the excess stream by
    stream (h2 itself would fail the whole connection)."""

    @property
    def max_inbound_streams(self):
        return 1 << 30


FIRED = set()  # the queries whose reset or goaway has happened


class Server:
    def __init__(self, reader, writer, max_streams):
        self.reader = reader
        self.writer = writer
        self.max_streams = max_streams
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        self.conn = Connection(config=config)
        self.streams = {}
        self.windows = {}
        self.closed = False
        peer = writer.get_extra_info("peername")
        self.address = f"{peer[0]}:{peer[1]}"

    def flush(self):
        data = self.conn.data_to_send()
        if data and not self.closed:
            self.writer.write(data)

    async def run(self):
        self.conn.initiate_connection()
        self.conn.update_settings({SettingCodes.MAX_CONCURRENT_STREAMS: self.max_streams})
        self.flush()
        try:
            while not self.closed:
                data = await self.reader.read(65536)
                if not data:
                    break
                try:
                    events = self.conn.receive_data(data)
                except h2.exceptions.ProtocolError:
                    self.flush()
                    break
                for event in events:
                    self.handle(event)
                self.flush()
        finally:
            self.close()

    def handle(self, event):
        if isinstance(event, h2.events.RequestReceived):
            if len(self.streams) >= self.max_streams:
                self.conn.reset_stream(event.stream_id, ErrorCodes.REFUSED_STREAM)
                return
            headers = dict(event.headers)
            self.streams[event.stream_id] = asyncio.create_task(self.respond(event.stream_id, headers))
        elif isinstance(event, h2.events.StreamReset):
            task = self.streams.pop(event.stream_id, None)
            if task:
                task.cancel()
        elif isinstance(event, h2.events.WindowUpdated):
            for waiter in self.windows.values():
                if not waiter.done():
                    waiter.set_result(None)
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.close()

    def close(self):
        if self.closed:
            return
        self.closed = True
        for task in self.streams.values():
            task.cancel()
        self.writer.close()

    async def send(self, stream_id, text):
        data = text.encode()
        while self.conn.local_flow_control_window(stream_id) < len(data):
            waiter = asyncio.get_running_loop().create_future()
            self.windows[stream_id] = waiter
            await waiter
        self.conn.send_data(stream_id, data)
        self.flush()

    async def respond(self, stream_id, headers):
        try:
            await self.route(stream_id, headers)
        except asyncio.CancelledError:
            pass
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError, ConnectionError):
            pass
        finally:
            self.streams.pop(stream_id, None)
            self.windows.pop(stream_id, None)

    async def route(self, stream_id, headers):
        parts = urlsplit(headers.get(":path", "/"))
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/slow":
            await asyncio.sleep(float(query.get("delay", "5")))
        if parts.path not in ("/connection", "/events", "/slow"):
            self.conn.send_headers(stream_id, [(":status", "404")], end_stream=True)
            self.flush()
            return
        self.conn.send_headers(stream_id, [(":status", "200"), ("content-type", "text/event-stream"),
                                           ("cache-control", "no-cache")])
        self.flush()
        if parts.path == "/connection":
            await self.send(stream_id, f"event: connection\ndata: {self.address}\n\n")
            while True:
                await asyncio.sleep(float(query.get("interval", "1")))
                await self.send(stream_id, ": ping\n\n")
        if parts.path == "/slow":
            await self.send(stream_id, "data: slow\n\n")
            self.conn.end_stream(stream_id)
            self.flush()
            return
        await self.events(stream_id, headers, query)

    async def events(self, stream_id, headers, query):
        count = int(query.get("count", "5"))
        interval = float(query.get("interval", "0.05"))
        key = headers.get(":path")
        first = int(headers.get("last-event-id") or 0) + 1
        pad = int(query.get("pad", "0"))
        padding = " " + "x" * pad if pad > 0 else ""
        for n in range(first, count + 1):
            await self.send(stream_id, f"id: {n}\nevent: tick\ndata: tick {n}{padding}\n\n")
            cut = key not in FIRED and str(n) in (query.get("reset"), query.get("goaway"))
            if cut:
                FIRED.add(key)
            if cut and query.get("reset") == str(n):
                self.conn.reset_stream(stream_id, ErrorCodes.INTERNAL_ERROR)
                self.flush()
                return
            if cut:
                self.conn.close_connection(ErrorCodes.NO_ERROR)
                self.flush()
                await self.writer.drain()
                self.close()
                return
            if interval > 0:
                await asyncio.sleep(interval)
        self.conn.end_stream(stream_id)
        self.flush()


def add_options(parser):
    parser.add_argument("--max-streams", type=int, default=100, help="SETTINGS_MAX_CONCURRENT_STREAMS")


async def main():
    args = peer_common.parse_args(__doc__.splitlines()[0], extra=add_options)
    sock = peer_common.bind_socket(args.host)
    context = peer_common.ssl_context(args)
    if context:
        context.set_alpn_protocols(["h2"])

    async def serve(reader, writer):
        try:
            await Server(reader, writer, args.max_streams).run()
        except (asyncio.CancelledError, ConnectionError):
            pass

    server = await asyncio.start_server(serve, sock=sock, ssl=context)
    async with server:
        peer_common.announce(sock)
        await peer_common.wait_for_stop(args)


if __name__ == "__main__":
    asyncio.run(main())

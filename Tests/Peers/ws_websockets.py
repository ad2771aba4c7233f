"""WebSocket peer built on the `websockets` library (the reference Python implementation).

Paths (query parameters in brackets, defaults after '='):
  /echo                         echoes every text and binary message unchanged.
  /ping [count=3, payload=]     sends `count` pings, waits up to 5 s for each pong, then sends
                                the text "pongs <count>" and closes with 1000.
  /close [code=1000, reason=]   closes at once with that code and reason (code 0: no status).
  /large [size=10485760, type=binary]
                                sends one message of `size` bytes (byte i = i % 251 for binary,
                                ASCII letters for text), then echoes like /echo; the limit
                                for incoming messages is 64 MiB.
  /violate [mode=rsv]           breaks RFC 6455 on purpose by writing raw bytes after the
                                upgrade: rsv (RSV2 set), opcode (reserved opcode 0x3),
                                masked (server frame with the MASK bit), badutf8 (text frame
                                with invalid UTF-8), control (ping with 126-byte payload),
                                fragcontrol (ping without FIN), continuation (continuation
                                frame without a start), badclose (close code 1005 on the
                                wire), garbage (bytes that are no frame at all).
  /subprotocol                  negotiates the first of chat.v2, chat.v1 the client offers
                                (none if it offers neither) and sends its name ("" if none).
  /headers                      sends the request headers as one JSON text message.
  /drop [after=hello]           sends the text `after`, then resets the TCP connection.
  /json-pong [count=3]          answers each text message that is the JSON {"op": "ping"} with
                                json.dumps({"op": "pong"}) (a space after the colon); after
                                `count` answers, sends the text "pongs <count>"; echoes
                                anything else.
Any other path answers the handshake with HTTP 404.

--deflate MODE chooses the permessage-deflate answer: `default` (the library's: 12-bit windows
both ways, context takeover), `server-no-context-takeover` or `client-no-context-takeover`
(RFC 7692 §7.1.1: the server declares it resets its compressor per message / asks the client
to reset its compressor per message, whether or not the client offered it).
"""

import asyncio
import json
import sys
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.http11 import Response

import peer_common

SUBPROTOCOLS = ["chat.v2", "chat.v1"]
KNOWN_PATHS = {"/echo", "/ping", "/close", "/large", "/violate", "/subprotocol", "/headers", "/drop", "/json-pong"}

# Raw frames for /violate, each wrong in exactly one way (RFC 6455 §5.2, §5.5, §5.4, §7.4).
VIOLATIONS = {
    "rsv": b"\xa1\x02hi",
    "opcode": b"\x83\x02hi",
    "masked": b"\x81\x82\x01\x02\x03\x04" + bytes(a ^ b for a, b in zip(b"hi", b"\x01\x02")),
    "badutf8": b"\x81\x04\xce\xba\xe1\xbd",
    "control": b"\x89\x7e\x00\x7e" + b"p" * 126,
    "fragcontrol": b"\x09\x02hi",
    "continuation": b"\x80\x02hi",
    "badclose": b"\x88\x02\x03\xed",
    "garbage": b"\xff\xff\xff\xff HTTP/1.1 200 OK\r\n\r\n",
}


def query(connection):
    parts = urlsplit(connection.request.path)
    return parts.path, {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}


def select_subprotocol(connection, offered):
    # Only /subprotocol negotiates; elsewhere a client's offer is ignored so the other
    # paths work with or without one.
    if urlsplit(connection.request.path).path != "/subprotocol":
        return None
    for name in SUBPROTOCOLS:
        if name in offered:
            return name
    return None


def process_request(connection, request):
    if urlsplit(request.path).path not in KNOWN_PATHS:
        return Response(404, "Not Found", Headers([("Content-Type", "text/plain")]), b"no such path\n")
    return None


def pattern(size, kind):
    if kind == "text":
        unit = b"abcdefghijklmnopqrstuvwxyz0123456789"
        return (unit * (size // len(unit) + 1))[:size].decode("ascii")
    unit = bytes(range(251))
    return (unit * (size // 251 + 1))[:size]


async def echo(ws):
    async for message in ws:
        await ws.send(message)


async def json_pong(ws, count):
    answered = 0
    async for message in ws:
        try:
            ping = isinstance(message, str) and json.loads(message) == {"op": "ping"}
        except ValueError:
            ping = False
        if not ping:
            await ws.send(message)
            continue
        await ws.send(json.dumps({"op": "pong"}))
        answered += 1
        if answered == count:
            await ws.send(f"pongs {count}")


async def handler(ws):
    path, params = query(ws)
    try:
        if path == "/echo":
            await echo(ws)
        elif path == "/ping":
            count = int(params.get("count", "3"))
            payload = params.get("payload", "").encode()
            for _ in range(count):
                waiter = await ws.ping(payload or None)
                await asyncio.wait_for(waiter, timeout=5)
            await ws.send(f"pongs {count}")
            await ws.close(1000, "pings done")
        elif path == "/close":
            code = int(params.get("code", "1000"))
            reason = params.get("reason", "")
            if code == 0:
                # A close frame without a status code (RFC 6455 §5.5.1 allows an empty body).
                ws.transport.write(b"\x88\x00")
                await ws.wait_closed()
            else:
                await ws.close(code, reason)
        elif path == "/large":
            size = int(params.get("size", str(10 * 1024 * 1024)))
            await ws.send(pattern(size, params.get("type", "binary")))
            await echo(ws)
        elif path == "/violate":
            frame = VIOLATIONS.get(params.get("mode", "rsv"))
            if frame is None:
                await ws.close(1008, "unknown mode")
                return
            ws.transport.write(frame)
            # Give the client time to react (it should close or drop the connection).
            try:
                await asyncio.wait_for(ws.wait_closed(), timeout=10)
            finally:
                ws.transport.abort()
        elif path == "/subprotocol":
            await ws.send(ws.subprotocol or "")
            await echo(ws)
        elif path == "/headers":
            await ws.send(json.dumps({k.lower(): v for k, v in ws.request.headers.raw_items()}))
            await echo(ws)
        elif path == "/json-pong":
            await json_pong(ws, int(params.get("count", "3")))
        elif path == "/drop":
            await ws.send(params.get("after", "hello"))
            ws.transport.abort()
    except ConnectionClosed:
        pass


def deflate_argument(parser):
    parser.add_argument(
        "--deflate",
        default="default",
        choices=["default", "server-no-context-takeover", "client-no-context-takeover"],
        help="permessage-deflate answer (default: the library's)",
    )


def compression_options(mode):
    if mode == "default":
        return {}
    factory = ServerPerMessageDeflateFactory(
        server_no_context_takeover=mode == "server-no-context-takeover",
        client_no_context_takeover=mode == "client-no-context-takeover",
        server_max_window_bits=12,
        client_max_window_bits=12,
    )
    return {"compression": None, "extensions": [factory]}


async def main():
    args = peer_common.parse_args(__doc__.splitlines()[0], extra=deflate_argument)
    sock = peer_common.bind_socket(args.host)
    async with serve(
        handler,
        sock=sock,
        ssl=peer_common.ssl_context(args),
        subprotocols=SUBPROTOCOLS,
        select_subprotocol=select_subprotocol,
        process_request=process_request,
        max_size=64 * 1024 * 1024,
        ping_interval=None,  # /ping sends pings explicitly; no background keepalive noise.
        **compression_options(args.deflate),
    ):
        peer_common.announce(sock)
        await peer_common.wait_for_stop(args)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)

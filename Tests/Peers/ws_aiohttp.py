"""WebSocket peer built on aiohttp's server.

Paths (query parameters in brackets, defaults after '='):
  /echo                         echoes every text and binary message unchanged.
  /heartbeat [interval=0.2]     aiohttp's server heartbeat: a ping every `interval` seconds,
                                and the connection is closed if a pong does not come back
                                in time. Echoes like /echo. After 3 intervals it sends the
                                text "alive" so a client can tell it answered the pings.
  /close [code=1000, reason=]   closes at once with that code and reason.
  /large [size=10485760, type=binary]
                                sends one message of `size` bytes (byte i = i % 251 for binary,
                                ASCII letters for text), then echoes; incoming limit 64 MiB.
  /subprotocol                  negotiates chat.v2 or chat.v1 and sends the chosen name.
"""

import asyncio
import sys

from aiohttp import WSMsgType, web

import peer_common

MAX_MESSAGE = 64 * 1024 * 1024


def pattern(size, kind):
    if kind == "text":
        unit = b"abcdefghijklmnopqrstuvwxyz0123456789"
        return (unit * (size // len(unit) + 1))[:size].decode("ascii")
    unit = bytes(range(251))
    return (unit * (size // 251 + 1))[:size]


async def echo_loop(ws):
    async for msg in ws:
        if msg.type == WSMsgType.TEXT:
            await ws.send_str(msg.data)
        elif msg.type == WSMsgType.BINARY:
            await ws.send_bytes(msg.data)
        elif msg.type == WSMsgType.ERROR:
            break


async def echo(request):
    ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE)
    await ws.prepare(request)
    await echo_loop(ws)
    return ws


async def heartbeat(request):
    interval = float(request.query.get("interval", "0.2"))
    ws = web.WebSocketResponse(heartbeat=interval, max_msg_size=MAX_MESSAGE)
    await ws.prepare(request)

    async def report_alive():
        await asyncio.sleep(interval * 3)
        if not ws.closed:
            await ws.send_str("alive")

    task = asyncio.create_task(report_alive())
    try:
        await echo_loop(ws)
    finally:
        task.cancel()
    return ws


async def close(request):
    ws = web.WebSocketResponse()
    await ws.prepare(request)
    code = int(request.query.get("code", "1000"))
    reason = request.query.get("reason", "")
    await ws.close(code=code, message=reason.encode())
    return ws


async def large(request):
    ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE)
    await ws.prepare(request)
    size = int(request.query.get("size", str(10 * 1024 * 1024)))
    body = pattern(size, request.query.get("type", "binary"))
    if isinstance(body, str):
        await ws.send_str(body)
    else:
        await ws.send_bytes(body)
    await echo_loop(ws)
    return ws


async def subprotocol(request):
    ws = web.WebSocketResponse(protocols=("chat.v2", "chat.v1"))
    await ws.prepare(request)
    await ws.send_str(ws.ws_protocol or "")
    await echo_loop(ws)
    return ws


async def main():
    args = peer_common.parse_args(__doc__.splitlines()[0])
    app = web.Application()
    app.add_routes(
        [
            web.get("/echo", echo),
            web.get("/heartbeat", heartbeat),
            web.get("/close", close),
            web.get("/large", large),
            web.get("/subprotocol", subprotocol),
        ]
    )
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    sock = peer_common.bind_socket(args.host)
    site = web.SockSite(runner, sock, ssl_context=peer_common.ssl_context(args))
    await site.start()
    peer_common.announce(sock)
    try:
        await peer_common.wait_for_stop(args)
    finally:
        await runner.cleanup()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)

"""SSE peer built on aiohttp with `aiohttp-sse`.

Endpoints (query parameters in brackets, defaults after '='):
  GET /events [count=5, interval=0, retry=, ping=15]
                events with ids 1..count, event type "tick", data "tick <id>"; a resumed
                request (Last-Event-ID header, or ?last_event_id=) continues after that id;
                count=0 streams forever; retry= sends that reconnection time (ms) with the
                first event; ping=S is aiohttp-sse's ": ping" comment interval. Then ends.
  GET /multiline  one event with three data lines (one of them multi-byte UTF-8), then ends.
  GET /secure     401 unless "Authorization: Bearer good"; then like /events with count=3.
  GET /nocontent  204.
"""

import asyncio
import sys

from aiohttp import web
from aiohttp_sse import sse_response

import peer_common


def resume_point(request):
    raw = request.headers.get("Last-Event-ID") or request.query.get("last_event_id") or "0"
    try:
        return int(raw)
    except ValueError:
        return 0


async def stream_ticks(request, count, interval=0.0, retry=None, ping=15.0):
    async with sse_response(request, ping_interval=ping) as sse:
        n = resume_point(request) + 1
        first = n
        try:
            while count == 0 or n <= count:
                await sse.send(f"tick {n}", id=str(n), event="tick", retry=retry if n == first else None)
                n += 1
                if interval > 0:
                    await asyncio.sleep(interval)
        except ConnectionResetError:
            pass  # The client went away (tests cut streams on purpose); nothing to report.
    return sse


async def events(request):
    q = request.query
    return await stream_ticks(
        request,
        count=int(q.get("count", "5")),
        interval=float(q.get("interval", "0")),
        retry=int(q["retry"]) if "retry" in q else None,
        ping=float(q.get("ping", "15")),
    )


async def multiline(request):
    async with sse_response(request) as sse:
        await sse.send("line one\nline two\nzwei – ☃ – 雪", event="multi", id="m1")
    return sse


async def secure(request):
    if request.headers.get("Authorization") != "Bearer good":
        return web.Response(status=401, text="unauthorized\n", headers={"WWW-Authenticate": 'Bearer realm="peer"'})
    return await stream_ticks(request, count=3)


async def nocontent(request):
    return web.Response(status=204)


async def main():
    args = peer_common.parse_args(__doc__.splitlines()[0])
    app = web.Application()
    app.add_routes(
        [
            web.get("/events", events),
            web.get("/multiline", multiline),
            web.get("/secure", secure),
            web.get("/nocontent", nocontent),
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

"""SSE peer: an ASGI app with `sse-starlette`, served by `uvicorn` (started by this script).

Endpoints (query parameters in brackets, defaults after '='):
  GET  /events [count=5, interval=0, retry=, sep=lf, ping=]
                 events with ids 1..count, event type "tick", data "tick <id>". A resumed
                 request (Last-Event-ID header, or ?last_event_id=) continues after that id.
                 count=0 streams forever. retry= sends that reconnection time (ms) with the
                 first event; sep=crlf|cr|lf picks the line ending; ping=S sends ": ping"
                 comments every S seconds. The stream then ends cleanly.
  GET  /multiline  one event whose data spans three lines (and a UTF-8 multi-byte line),
                 a comment line, an event with an empty data line, then the end.
  POST /llm      body {"prompt": "...", "chunk": 3}: streams the prompt back as
                 OpenAI-style deltas of `chunk` characters (data: {"choices":[{"delta":
                 {"content": "..."}}]}), then "data: [DONE]", then ends. 400 on a bad body.
  GET  /secure   401 with WWW-Authenticate unless "Authorization: Bearer good"; then like
                 /events with count=3.
  GET  /nocontent    204: the server asks the client not to reconnect.
  GET  /status [code=500, retry_after=]  that status with a text body (and Retry-After).
  GET  /wrongtype    200 with Content-Type text/plain.
  GET  /headers      one event whose data is the request headers as JSON.
  GET  /protocol     one event whose data is the HTTP version the server saw ("1.1", "2").
  GET  /connection [count=0, interval=1]
                 one event whose data is the client's address and port as the server saw
                 them ("127.0.0.1:41234": streams multiplexed on one connection share it),
                 then `count` "tick" events `interval` seconds apart (count=0: the stream
                 stays open with a ": ping" comment every `interval` seconds).

--server hypercorn serves the app with Hypercorn instead of uvicorn: with --tls-cert and
--tls-key it offers HTTP/2 through ALPN (h2, then http/1.1); without them it accepts HTTP/2
with prior knowledge (h2c) beside HTTP/1.1. --max-streams N sets the
SETTINGS_MAX_CONCURRENT_STREAMS Hypercorn announces (default 100).
"""

import asyncio
import json
import sys

import uvicorn
from hypercorn.asyncio import serve as hypercorn_serve
from hypercorn.config import Config as HypercornConfig
from sse_starlette.sse import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

import peer_common

SEPARATORS = {"lf": "\n", "crlf": "\r\n", "cr": "\r"}


def resume_point(request: Request) -> int:
    raw = request.headers.get("last-event-id") or request.query_params.get("last_event_id") or "0"
    try:
        return int(raw)
    except ValueError:
        return 0


async def tick_stream(first: int, count: int, interval: float, retry):
    n = first
    while count == 0 or n <= count:
        yield ServerSentEvent(data=f"tick {n}", event="tick", id=str(n), retry=retry if n == first else None)
        n += 1
        if interval > 0:
            await asyncio.sleep(interval)


async def events(request: Request):
    q = request.query_params
    count = int(q.get("count", "5"))
    interval = float(q.get("interval", "0"))
    retry = int(q["retry"]) if "retry" in q else None
    ping = float(q["ping"]) if "ping" in q else None
    sep = SEPARATORS.get(q.get("sep", "lf"), "\n")
    return EventSourceResponse(
        tick_stream(resume_point(request) + 1, count, interval, retry),
        sep=sep,
        ping=ping,
    )


async def multiline(request: Request):
    async def stream():
        yield ServerSentEvent(data="line one\nline two\nzwei – ☃ – 雪", event="multi", id="m1")
        yield ServerSentEvent(comment="just a comment")
        yield ServerSentEvent(data="", event="empty", id="m2")
        yield ServerSentEvent(data="last", id="m3")

    return EventSourceResponse(stream())


async def llm(request: Request):
    try:
        body = await request.json()
        prompt = str(body["prompt"])
        chunk = max(1, int(body.get("chunk", 3)))
    except (ValueError, KeyError, TypeError):
        return JSONResponse({"error": "expected {\"prompt\": string}"}, status_code=400)

    async def stream():
        for start in range(0, len(prompt), chunk):
            delta = {"choices": [{"index": 0, "delta": {"content": prompt[start:start + chunk]}}]}
            yield ServerSentEvent(data=json.dumps(delta, ensure_ascii=False))
        yield ServerSentEvent(data="[DONE]")

    return EventSourceResponse(stream())


async def secure(request: Request):
    if request.headers.get("authorization") != "Bearer good":
        return PlainTextResponse(
            "unauthorized\n", status_code=401, headers={"WWW-Authenticate": 'Bearer realm="peer"'}
        )
    return EventSourceResponse(tick_stream(resume_point(request) + 1, 3, 0, None))


async def nocontent(request: Request):
    return Response(status_code=204)


async def status(request: Request):
    code = int(request.query_params.get("code", "500"))
    headers = {}
    if "retry_after" in request.query_params:
        headers["Retry-After"] = request.query_params["retry_after"]
    return PlainTextResponse(f"status {code}\n", status_code=code, headers=headers)


async def wrongtype(request: Request):
    return PlainTextResponse("data: not an event stream\n\n")


async def headers(request: Request):
    async def stream():
        yield ServerSentEvent(data=json.dumps(dict(request.headers)))

    return EventSourceResponse(stream())


async def protocol(request: Request):
    async def stream():
        yield ServerSentEvent(data=request.scope.get("http_version", ""))

    return EventSourceResponse(stream())


async def connection(request: Request):
    q = request.query_params
    count = int(q.get("count", "0"))
    interval = float(q.get("interval", "1"))
    host, port = request.scope.get("client") or ("", 0)

    async def stream():
        yield ServerSentEvent(data=f"{host}:{port}", event="connection")
        n = 0
        while count == 0 or n < count:
            await asyncio.sleep(interval)
            n += 1
            yield ServerSentEvent(data=f"tick {n}", event="tick", id=str(n)) if count else ServerSentEvent(comment="ping")

    return EventSourceResponse(stream())


app = Starlette(
    routes=[
        Route("/events", events),
        Route("/multiline", multiline),
        Route("/llm", llm, methods=["POST"]),
        Route("/secure", secure),
        Route("/nocontent", nocontent),
        Route("/status", status),
        Route("/wrongtype", wrongtype),
        Route("/headers", headers),
        Route("/protocol", protocol),
        Route("/connection", connection),
    ]
)


def add_server_option(parser):
    parser.add_argument("--server", choices=["uvicorn", "hypercorn"], default="uvicorn")
    parser.add_argument("--max-streams", type=int, default=100, help="Hypercorn's h2_max_concurrent_streams")


async def serve_with_hypercorn(args, sock):
    config = HypercornConfig()
    # The socket is already bound and listening: Hypercorn adopts it by descriptor.
    config.bind = [f"fd://{sock.fileno()}"]
    config.certfile = args.tls_cert
    config.keyfile = args.tls_key
    config.alpn_protocols = ["h2", "http/1.1"]
    config.accesslog = None
    config.errorlog = None
    config.graceful_timeout = 1
    config.h2_max_concurrent_streams = args.max_streams
    # Connections wait in the listen backlog until Hypercorn accepts them.
    peer_common.announce(sock)
    await hypercorn_serve(app, config, shutdown_trigger=lambda: peer_common.wait_for_stop(args))


async def main():
    args = peer_common.parse_args(__doc__.splitlines()[0], extra=add_server_option)
    sock = peer_common.bind_socket(args.host)
    if args.server == "hypercorn":
        await serve_with_hypercorn(args, sock)
        return
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        ssl_certfile=args.tls_cert,
        ssl_keyfile=args.tls_key,
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    # uvicorn installs its own signal handlers while serving; ours (and stdin EOF) just
    # ask it to exit.
    server_task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if server_task.done():
            await server_task
            sys.exit("uvicorn failed to start")
        await asyncio.sleep(0.01)
    peer_common.announce(sock)
    stopper = asyncio.create_task(peer_common.wait_for_stop(args))
    done, _ = await asyncio.wait({server_task, stopper}, return_when=asyncio.FIRST_COMPLETED)
    server.should_exit = True
    await server_task
    stopper.cancel()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)

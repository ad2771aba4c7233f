"""GraphQL peer: strawberry-graphql's ASGI app under uvicorn, speaking graphql-transport-ws on /graphql.

Subscriptions (every feed is numbered, so a client that re-subscribes with the last number it
received as `after` resumes without a gap or a repeat, on this process or on a restarted one):
  ticks(after: Int = 0, count: Int = 0, intervalMs: Int = 0): Tick { seq }
                 seq after+1, after+2, ... up to count (0: forever), one every intervalMs.
  letters(after: Int = 0, count: Int = 26, intervalMs: Int = 0): Letter { seq, letter }
                 a second type on the same connection: seq n carries the n-th letter a..z
                 (cycling), up to count.
  readings(after: Int = 0, count: Int = 4): Reading { seq, note }
                 partial data: the `note` of every even seq fails, so its `next` carries data
                 with note null and one GraphQL error whose path is ["readings", "note"].
Query: hello: String ("world").

The connection_init payload must be {"token": "<--token>"} (default "good"); any other
payload is rejected with close code 4403 (strawberry's on_ws_connect). The ack carries
{"server": "strawberry"}.

--port N binds that port instead of a free one, so a test can stop the peer and start a new
one where its clients reconnect. --init-timeout-ms sets how long the server waits for
connection_init before closing with 4408.
"""

import asyncio
import socket
import sys
from datetime import timedelta
from typing import AsyncGenerator, Optional

import strawberry
import uvicorn
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL

import peer_common

TOKEN = "good"


@strawberry.type
class Tick:
    seq: int


@strawberry.type
class Letter:
    seq: int
    letter: str


@strawberry.type
class Reading:
    seq: int

    @strawberry.field
    def note(self) -> Optional[str]:
        if self.seq % 2 == 0:
            raise ValueError(f"no note for reading {self.seq}")
        return f"note {self.seq}"


@strawberry.type
class Query:
    hello: str = "world"


async def numbered(after: int, count: int, interval_ms: int):
    n = after + 1
    while count == 0 or n <= count:
        yield n
        n += 1
        await asyncio.sleep(interval_ms / 1000)


@strawberry.type
class Subscription:
    @strawberry.subscription
    async def ticks(self, after: int = 0, count: int = 0, interval_ms: int = 0) -> AsyncGenerator[Tick, None]:
        async for n in numbered(after, count, interval_ms):
            yield Tick(seq=n)

    @strawberry.subscription
    async def letters(self, after: int = 0, count: int = 26, interval_ms: int = 0) -> AsyncGenerator[Letter, None]:
        async for n in numbered(after, count, interval_ms):
            yield Letter(seq=n, letter=chr(ord("a") + (n - 1) % 26))

    @strawberry.subscription
    async def readings(self, after: int = 0, count: int = 4) -> AsyncGenerator[Reading, None]:
        async for n in numbered(after, count, 0):
            yield Reading(seq=n)


class App(GraphQL):
    async def on_ws_connect(self, context):
        params = context.get("connection_params") or {}
        if params.get("token") != TOKEN:
            raise ConnectionRejectionError()
        return {"server": "strawberry"}


def add_options(parser):
    parser.add_argument("--port", type=int, default=0, help="the port to bind (default: a free one)")
    parser.add_argument("--token", default="good", help="the token connection_init must carry")
    parser.add_argument("--init-timeout-ms", type=int, default=60000, help="connection_init wait timeout")


def bind(host, port):
    """A listening socket on ``port`` (0: a free one), with SO_REUSEADDR for a restart."""
    if port == 0:
        return peer_common.bind_socket(host)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def main():
    global TOKEN
    args = peer_common.parse_args(__doc__.splitlines()[0], extra=add_options)
    TOKEN = args.token
    schema = strawberry.Schema(query=Query, subscription=Subscription)
    app = App(
        schema,
        graphql_ide=None,
        subscription_protocols=[GRAPHQL_TRANSPORT_WS_PROTOCOL],
        connection_init_wait_timeout=timedelta(milliseconds=args.init_timeout_ms),
        max_subscriptions_per_connection=None,
    )
    sock = bind(args.host, args.port)
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        ssl_certfile=args.tls_cert,
        ssl_keyfile=args.tls_key,
        timeout_graceful_shutdown=1,
        ws_ping_interval=None,
    )
    server = uvicorn.Server(config)
    server_task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if server_task.done():
            await server_task
            sys.exit("uvicorn failed to start")
        await asyncio.sleep(0.01)
    peer_common.announce(sock)
    stopper = asyncio.create_task(peer_common.wait_for_stop(args))
    await asyncio.wait({server_task, stopper}, return_when=asyncio.FIRST_COMPLETED)
    server.should_exit = True
    await server_task
    stopper.cancel()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)

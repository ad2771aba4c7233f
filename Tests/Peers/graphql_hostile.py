"""Hostile graphql-transport-ws peer: a `websockets` server whose /<case> endpoints break the protocol.

Every case speaks the protocol's subprotocol and serves one numbered feed: a `subscribe`
whose variables carry {"after": a, "count": n} is answered with `next` messages
{"ticks": {"seq": k}} for k = a+1..n, then `complete`. The connection_init payload is not
checked. What each case does wrong:

  noack       reads connection_init and never answers it.
  acktwice    acknowledges twice, and again after the third result of the feed.
  unknown     on the first connection, after the third result, sends {"type": "surprise"}
              and keeps the connection until the client closes it; later connections behave.
  reuse       on the first connection, completes the operation after the third result,
              then sends a fourth `next` under the same id; later connections behave.
  storm       closes every connection with 4429 "Too many initialisation requests" as
              soon as connection_init arrives.
  pings       sends {"type": "ping"} before the ack and after every result, and waits for
              each `pong` before going on (so a client that does not answer stalls).
  deaf        behaves, but never answers the client's `ping`.

GET /stats/<case> (plain HTTP) returns the case's record as JSON: connections, inits, the
client's pings and pongs, the ids it completed, the `after` of every subscribe, and the close
codes the client closed with.
"""

import asyncio
import json
import sys
from collections import defaultdict

from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Response

import peer_common

CASES = {"noack", "acktwice", "unknown", "reuse", "storm", "pings", "deaf"}
STATS = defaultdict(lambda: {
    "connections": 0, "inits": 0, "pings": 0, "pongs": 0, "completes": [], "afters": [], "closeCodes": [],
})


def process_request(connection, request):
    if request.path.startswith("/stats/"):
        body = json.dumps(STATS[request.path[len("/stats/"):]]).encode()
        return Response(200, "OK", Headers([("Content-Type", "application/json")]), body)
    if request.path.lstrip("/") not in CASES:
        return Response(404, "Not Found", Headers([("Content-Type", "text/plain")]), b"no such case\n")
    return None


def select_subprotocol(connection, subprotocols):
    return "graphql-transport-ws" if "graphql-transport-ws" in subprotocols else None


class Session:
    def __init__(self, ws, case):
        self.ws = ws
        self.case = case
        self.stats = STATS[case]
        self.stats["connections"] += 1
        self.first = self.stats["connections"] == 1
        self.pongs = asyncio.Queue()
        self.feeds = set()

    async def send(self, message):
        await self.ws.send(json.dumps(message))

    async def run(self):
        try:
            async for text in self.ws:
                await self.handle(json.loads(text))
        except ConnectionClosed:
            pass
        finally:
            if self.ws.close_code is not None:
                self.stats["closeCodes"].append(self.ws.close_code)
            for feed in self.feeds:
                feed.cancel()

    async def handle(self, message):
        kind = message.get("type")
        if kind == "connection_init":
            self.stats["inits"] += 1
            asyncio.create_task(self.initialized())
        elif kind == "ping":
            self.stats["pings"] += 1
            if self.case != "deaf":
                await self.send({"type": "pong"})
        elif kind == "pong":
            self.stats["pongs"] += 1
            self.pongs.put_nowait(True)
        elif kind == "subscribe":
            variables = message["payload"].get("variables") or {}
            self.stats["afters"].append(variables.get("after", 0))
            feed = asyncio.create_task(self.feed(message["id"], variables.get("after", 0), variables.get("count", 10)))
            self.feeds.add(feed)
        elif kind == "complete":
            self.stats["completes"].append(message["id"])

    async def initialized(self):
        if self.case == "noack":
            return
        if self.case == "storm":
            await self.ws.close(4429, "Too many initialisation requests")
            return
        if self.case == "pings":
            await self.ping()
        await self.send({"type": "connection_ack"})
        if self.case == "acktwice":
            await self.send({"type": "connection_ack"})

    async def ping(self):
        await self.send({"type": "ping", "payload": {"from": "hostile"}})
        await asyncio.wait_for(self.pongs.get(), timeout=10)

    async def feed(self, op_id, after, count):
        for seq in range(after + 1, count + 1):
            await self.send({"id": op_id, "type": "next", "payload": {"data": {"ticks": {"seq": seq}}}})
            if self.case == "pings":
                await self.ping()
            if seq == after + 3 and self.first:
                if await self.misbehave(op_id, seq):
                    return
        await self.send({"id": op_id, "type": "complete"})

    async def misbehave(self, op_id, seq):
        """The case's fault on the first connection; True when the feed must stop."""
        if self.case == "acktwice":
            await self.send({"type": "connection_ack"})
        elif self.case == "unknown":
            await self.send({"type": "surprise"})
            return True
        elif self.case == "reuse":
            await self.send({"id": op_id, "type": "complete"})
            await self.send({"id": op_id, "type": "next", "payload": {"data": {"ticks": {"seq": seq + 1}}}})
            return True
        return False


async def handler(ws):
    await Session(ws, ws.request.path.lstrip("/")).run()


async def main():
    args = peer_common.parse_args(__doc__.splitlines()[0])
    sock = peer_common.bind_socket(args.host)
    async with serve(
        handler,
        sock=sock,
        ssl=peer_common.ssl_context(args),
        subprotocols=["graphql-transport-ws"],
        select_subprotocol=select_subprotocol,
        process_request=process_request,
        ping_interval=None,
    ):
        peer_common.announce(sock)
        await peer_common.wait_for_stop(args)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)

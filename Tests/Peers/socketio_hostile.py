"""Hostile Socket.IO peer: a `websockets` server that speaks Engine.IO/Socket.IO just enough
to break it. The case is the first path segment: ws://host:port/<case>/socket.io/?EIO=4...

  noopen      accepts the WebSocket and never sends the Engine.IO open packet
  unknown     open, answers the CONNECT, then sends "9hello" (no such Engine.IO type)
  badsio      open, answers the CONNECT, then sends "48" (no such Socket.IO type)
  silent      open with pingInterval 300 ms and pingTimeout 200 ms, answers the CONNECT,
              then never pings (the client must give up on it after 500 ms of no ping)
  mute        open, never answers the CONNECT
  acks        open, answers the CONNECT, then an ack for an id never sent ("4399[1]"),
              then answers each EVENT with an ack id twice, then emits "after"
  attachments open, answers the CONNECT, then announces 1000 attachments ("451000-[...]")
  stray       open, answers the CONNECT, then sends a binary message no packet announced
"""

import asyncio
import json
import sys

from websockets.asyncio.server import serve

import peer_common

OPEN = {"sid": "hostile", "upgrades": [], "pingInterval": 25000, "pingTimeout": 20000, "maxPayload": 1000000}


async def answer_connect(ws):
    message = await ws.recv()
    namespace = "/"
    if isinstance(message, str) and message.startswith("40/"):
        namespace = message[2:].split(",", 1)[0]
    prefix = "40" if namespace == "/" else f"40{namespace},"
    await ws.send(prefix + json.dumps({"sid": "s1"}))


async def hold(ws):
    async for _ in ws:
        pass


async def handler(ws):
    parts = ws.request.path.split("/")
    case = parts[1] if len(parts) > 1 else ""
    if case == "noopen":
        return await hold(ws)
    if case == "silent":
        await ws.send("0" + json.dumps(dict(OPEN, pingInterval=300, pingTimeout=200)))
        await answer_connect(ws)
        return await hold(ws)
    await ws.send("0" + json.dumps(OPEN))
    if case == "mute":
        return await hold(ws)
    await answer_connect(ws)
    if case == "unknown":
        await ws.send("9hello")
    elif case == "badsio":
        await ws.send("48")
    elif case == "attachments":
        await ws.send('451000-["f",{"_placeholder":true,"num":0}]')
    elif case == "stray":
        await ws.send(b"\x01\x02")
    elif case == "acks":
        await ws.send('4399[1]')
        async for message in ws:
            if isinstance(message, str) and message.startswith("42"):
                digits = "".join(c for c in message[2:].split("[", 1)[0] if c.isdigit())
                if digits:
                    await ws.send(f'43{digits}["first"]')
                    await ws.send(f'43{digits}["second"]')
                    await ws.send('42["after"]')
        return
    await hold(ws)


async def main():
    args = peer_common.parse_args(__doc__.splitlines()[0])
    sock = peer_common.bind_socket(args.host)
    async with serve(handler, sock=sock, ssl=peer_common.ssl_context(args), ping_interval=None):
        peer_common.announce(sock)
        await peer_common.wait_for_stop(args)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)

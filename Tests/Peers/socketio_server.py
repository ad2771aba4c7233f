"""Socket.IO peer: python-socketio's AsyncServer (ASGI, served by uvicorn), WebSocket only.

Namespaces and events:

  /         join(room) -> ack "joined <room>"; chat(text) is broadcast as chat(text) to the
            room "lobby"; echo(*args) -> ack with the same arguments (bytes come back as
            attachments); shout(text) -> the server emits shout(text) back and, with an
            ack, asks the client to answer it (ask(question) -> the answer is recorded);
            answers() -> ack with the recorded answers; blob(n) -> emits blob(bytes of
            length n, bytes of length 1) back (a BINARY_EVENT with two attachments)
  /secure   CONNECT needs auth {"token": "good"}; otherwise CONNECT_ERROR
            {"message": "unauthorized"}; whoami() -> ack with the auth it saw
  /feed     connection state recovery, which python-socketio does not implement, done
            here on its public API: the CONNECT answer carries a "pid"; subscribe() joins
            the room "feed" (-> ack "subscribed"); every --feed-interval seconds the next
            value n (1, 2, ... up to --feed-count) is broadcast to the room as tick(n, "n"),
            the last argument being the offset. A CONNECT with auth {"pid", "offset"} of a
            known session gets the same pid back, its rooms again and every value after the
            offset (replayed before any new one). Sessions and the last value live in
            --state (a JSON file), so they survive a restart of the server on the same port
            (--port); --burst K broadcasts K values at start, before any client can join,
            which a client only gets by recovery.

Everything is on /socket.io/ (Engine.IO v4, transport=websocket).
"""

import asyncio
import json
import os
import socket
import sys
import uuid

import socketio
import uvicorn
from socketio import packet as sio_packet

import peer_common


def add_options(parser):
    parser.add_argument("--port", type=int, default=0, help="TCP port (default: any free one)")
    parser.add_argument("--state", default=None, help="JSON file of the recovery sessions and the feed's last value")
    parser.add_argument("--feed-interval", type=float, default=0.01)
    parser.add_argument("--feed-count", type=int, default=0, help="values the feed broadcasts in all (0: none)")
    parser.add_argument("--burst", type=int, default=0)
    parser.add_argument("--ping-interval", type=float, default=25)
    parser.add_argument("--ping-timeout", type=float, default=20)


ARGS = peer_common.parse_args(__doc__.splitlines()[0], extra=add_options)
STATE = {"last": 0, "sessions": {}}
if ARGS.state and os.path.exists(ARGS.state):
    with open(ARGS.state) as f:
        STATE = json.load(f)
ANSWERS = []
# The pid each new /feed CONNECT answer carries, and what a recovered one replays, by Engine.IO sid.
PENDING = {}
FEED_LOCK = asyncio.Lock()


def save():
    if not ARGS.state:
        return
    with open(ARGS.state + ".tmp", "w") as f:
        json.dump(STATE, f)
    os.replace(ARGS.state + ".tmp", ARGS.state)


class RecoveringServer(socketio.AsyncServer):
    """Adds the pid to the CONNECT answers of /feed and replays what a recovered session missed."""

    async def _send_packet(self, eio_sid, pkt):
        pending = None
        if pkt.packet_type == sio_packet.CONNECT and pkt.namespace == "/feed" and isinstance(pkt.data, dict):
            pending = PENDING.pop(eio_sid, None)
            if pending:
                pkt.data = dict(pkt.data, pid=pending["pid"])
        if pending is None:
            return await super()._send_packet(eio_sid, pkt)
        async with FEED_LOCK:
            await super()._send_packet(eio_sid, pkt)
            sid = pkt.data["sid"]
            for n in range(pending["after"] + 1, STATE["last"] + 1):
                await self.emit("tick", (n, str(n)), to=sid, namespace="/feed")
            for room in pending["rooms"]:
                await self.enter_room(sid, room, namespace="/feed")


sio = RecoveringServer(
    async_mode="asgi", ping_interval=ARGS.ping_interval, ping_timeout=ARGS.ping_timeout, transports=["websocket"]
)


@sio.on("join")
async def join(sid, room):
    await sio.enter_room(sid, room)
    return f"joined {room}"


@sio.on("chat")
async def chat(sid, text):
    await sio.emit("chat", text, room="lobby")


@sio.on("echo")
async def echo(sid, *args):
    return args


@sio.on("shout")
async def shout(sid, text):
    await sio.emit("shout", text, to=sid)
    answer = await sio.call("ask", f"did you hear {text}?", to=sid, timeout=10)
    ANSWERS.append(answer)


@sio.on("answers")
async def answers(sid):
    return ANSWERS


@sio.on("blob")
async def blob(sid, n):
    await sio.emit("blob", ((bytes(range(256)) * (n // 256 + 1))[:n], b"\x00"), to=sid)


@sio.on("connect", namespace="/secure")
async def secure_connect(sid, environ, auth):
    if not isinstance(auth, dict) or auth.get("token") != "good":
        raise socketio.exceptions.ConnectionRefusedError("unauthorized")
    await sio.save_session(sid, {"auth": auth}, namespace="/secure")


@sio.on("whoami", namespace="/secure")
async def whoami(sid):
    return (await sio.get_session(sid, namespace="/secure"))["auth"]


@sio.on("connect", namespace="/feed")
async def feed_connect(sid, environ, auth):
    eio_sid = sio.manager.eio_sid_from_sid(sid, "/feed")
    auth = auth if isinstance(auth, dict) else {}
    pid, offset = auth.get("pid"), auth.get("offset")
    known = STATE["sessions"].get(pid) if isinstance(pid, str) else None
    if known is not None and isinstance(offset, str) and offset.isdigit():
        PENDING[eio_sid] = {"pid": pid, "after": int(offset), "rooms": known["rooms"]}
    else:
        pid = uuid.uuid4().hex
        STATE["sessions"][pid] = {"rooms": []}
        save()
        PENDING[eio_sid] = {"pid": pid, "after": STATE["last"], "rooms": []}
    await sio.save_session(sid, {"pid": pid}, namespace="/feed")


@sio.on("subscribe", namespace="/feed")
async def subscribe(sid):
    pid = (await sio.get_session(sid, namespace="/feed"))["pid"]
    await sio.enter_room(sid, "feed", namespace="/feed")
    STATE["sessions"][pid]["rooms"] = ["feed"]
    save()
    return "subscribed"


async def broadcast_next():
    async with FEED_LOCK:
        STATE["last"] += 1
        save()
        n = STATE["last"]
        await sio.emit("tick", (n, str(n)), room="feed", namespace="/feed")


async def feed():
    for _ in range(ARGS.burst):
        if STATE["last"] < ARGS.feed_count:
            await broadcast_next()
    while STATE["last"] < ARGS.feed_count:
        await asyncio.sleep(ARGS.feed_interval)
        await broadcast_next()


def bind(host, port):
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(1024)
    sock.setblocking(False)
    return sock


async def main():
    sock = bind(ARGS.host, ARGS.port)
    config = uvicorn.Config(
        socketio.ASGIApp(sio), log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=1,
        ws_max_size=1 << 24, backlog=1024,
    )
    feeder = None

    async def start_feed():
        # The burst goes out before anyone can be told the port: only recovery brings it.
        nonlocal feeder
        burst_end = min(ARGS.feed_count, STATE["last"] + ARGS.burst)
        feeder = asyncio.create_task(feed())
        while STATE["last"] < burst_end and not feeder.done():
            await asyncio.sleep(0.001)

    await peer_common.serve_uvicorn(config, sock, ARGS, started=start_feed)
    feeder.cancel()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)

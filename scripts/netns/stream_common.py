"""Shared by the fault-test servers in this folder (sse_server.py, ws_server.py).

Command line: HOST PORT COUNT INTERVAL_MS [--pad BYTES] [--drip-ms MS] [--rst]
  COUNT        events/messages numbered 1..COUNT, one every INTERVAL_MS (0: as fast as TCP goes)
  --pad BYTES  add BYTES of filler to each payload (bandwidth tests); the socket's send
               buffer is then made large (1 MiB asked, the kernel caps it), so a whole stream
               of a few hundred KiB is handed to the kernel at once and the link stays busy
               even when a loaded machine does not schedule this process for a while
  --drip-ms MS write every byte on its own, MS apart, TCP_NODELAY (slow-drip tests)
  --rst        SO_LINGER 0 on accepted sockets: when the process dies (SIGKILL) the kernel
               resets the connections (RST) instead of closing them (FIN)
The server prints "ready" on stdout once it listens (announce_ready, also used by
silent_server.py), so a test knows when a (re)start is done.
"""
import argparse
import os
import socket
import struct
import threading
import time


# No fault test runs for more than a minute; servers exit after this many seconds regardless.
LIFETIME_SECONDS = 300


def parse_args(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("host")
    p.add_argument("port", type=int)
    p.add_argument("count", type=int)
    p.add_argument("interval_ms", type=int)
    p.add_argument("--pad", type=int, default=0)
    p.add_argument("--drip-ms", type=int, default=0)
    p.add_argument("--rst", action="store_true")
    return p.parse_args()


def payload(args, i):
    """The text of event/message i: 'event i', plus filler when --pad is given."""
    text = f"event {i}"
    return text + " " + "x" * args.pad if args.pad else text


def prepare(args, sock):
    """Socket options for an accepted connection, per the command line."""
    if args.rst:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    if args.drip_ms:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if args.pad:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)


def send(args, sock, data):
    """sendall, or one byte at a time --drip-ms apart."""
    if not args.drip_ms:
        sock.sendall(data)
        return
    for b in data:
        sock.sendall(bytes([b]))
        time.sleep(args.drip_ms / 1000.0)


def announce_ready():
    """One write of "ready\n", then stdout is closed; the reader may be gone already.
    Also bounds the server's life (LIFETIME_SECONDS): a test process that crashes cannot
    run its cleanup, and its servers must not outlive it for long."""
    threading.Timer(LIFETIME_SECONDS, os._exit, args=(0,)).start()
    try:
        os.write(1, b"ready\n")
        os.close(1)
    except OSError:
        pass

"""Shared plumbing for the third-party peer servers used by the Swift tests.

Every peer follows one launch contract, which Tests/Support/PythonPeer.swift relies on:

* it binds 127.0.0.1 port 0 (``--host`` may name another loopback address such as ::1),
* it prints ``PORT <n>`` as the first line on stdout once the socket is listening,
* it serves TLS instead of plain TCP when ``--tls-cert`` and ``--tls-key`` are given,
* it exits when its stdin reaches end of file (the test process went away) or on
  SIGTERM/SIGINT, so no peer outlives the test run that started it.
"""

import argparse
import asyncio
import signal
import socket
import ssl
import sys


def parse_args(description, argv=None, extra=None):
    """The launch contract's options; ``extra(parser)`` may add a peer's own."""
    parser = argparse.ArgumentParser(description=description)
    if extra:
        extra(parser)
    parser.add_argument("--host", default="127.0.0.1", help="loopback address to bind (default 127.0.0.1)")
    parser.add_argument("--tls-cert", help="PEM certificate chain; serves TLS when given with --tls-key")
    parser.add_argument("--tls-key", help="PEM private key for --tls-cert")
    parser.add_argument(
        "--ignore-stdin",
        action="store_true",
        help="keep running when stdin closes (for manual runs in the background)",
    )
    args = parser.parse_args(argv)
    if bool(args.tls_cert) != bool(args.tls_key):
        parser.error("--tls-cert and --tls-key go together")
    return args


def bind_socket(host):
    """A listening TCP socket on ``host`` port 0 (the kernel picks a free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def ssl_context(args):
    if not args.tls_cert:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(args.tls_cert, args.tls_key)
    return context


def announce(sock):
    """Prints the bound port: the first stdout line is the launch contract."""
    print(f"PORT {sock.getsockname()[1]}", flush=True)


def install_stop_triggers(loop, stop, args):
    """Calls ``stop()`` on SIGTERM/SIGINT and, unless ignored, at end of stdin."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)
    if args.ignore_stdin:
        return

    def on_stdin():
        try:
            data = sys.stdin.buffer.raw.read(4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(sys.stdin.fileno())
            stop()

    try:
        loop.add_reader(sys.stdin.fileno(), on_stdin)
    except (PermissionError, ValueError, OSError):
        # stdin is a regular file or /dev/null: epoll cannot watch it, and a
        # file "closes" at once, so treat it as closed only if it is empty.
        if not sys.stdin.buffer.read(1):
            loop.call_soon(stop)


async def wait_for_stop(args):
    """Returns when the peer should shut down."""
    loop = asyncio.get_running_loop()
    event = asyncio.Event()
    install_stop_triggers(loop, event.set, args)
    await event.wait()


async def serve_uvicorn(config, sock, args, started=None):
    """Serves the uvicorn ``config`` on the bound ``sock`` until the peer should stop:
    announces the port once uvicorn is listening (after awaiting ``started()``, if given)."""
    import uvicorn

    server = uvicorn.Server(config)
    # uvicorn installs its own signal handlers while serving; ours (and stdin EOF) just
    # ask it to exit.
    server_task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if server_task.done():
            await server_task
            sys.exit("uvicorn failed to start")
        await asyncio.sleep(0.01)
    if started:
        await started()
    announce(sock)
    stopper = asyncio.create_task(wait_for_stop(args))
    await asyncio.wait({server_task, stopper}, return_when=asyncio.FIRST_COMPLETED)
    server.should_exit = True
    await server_task
    stopper.cancel()

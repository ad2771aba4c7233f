#!/usr/bin/env python3
"""A server that accepts TCP connections and never answers, for the fault tests.

usage: silent_server.py HOST PORT

It listens but never calls accept(): the kernel completes the TCP handshake and acknowledges
the request bytes (up to the backlog), and no response ever comes — the "accepts and never
answers" fault. Prints "ready" once listening.
"""
import signal
import socket
import sys

import stream_common

s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(16)
stream_common.announce_ready()
signal.pause()

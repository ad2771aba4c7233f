# -*- coding: utf-8 -*-
"""Runs the Autobahn|Testsuite fuzzing server on loopback (Python 2.7, .venv-autobahn).

Same as `wstest -m fuzzingserver -s SPEC -u 0`, except that it listens on 127.0.0.1
only (wstest binds every interface) on a port the kernel picks, so parallel runs never
race for a port. Prints "PORT <n>" and then "CASES <n>" (the number of cases the spec
selects) on stdout, serves until SIGTERM/SIGINT, and writes index.json into the spec's
outdir when a client calls /updateReports.

Usage: python autobahn_fuzzingserver.py SPEC.json
"""
from __future__ import print_function

import json
import sys

# Importing the test suite installs the best Twisted reactor (epoll on Linux), so it
# comes before the reactor import.
from autobahntestsuite import fuzzing
from twisted.internet import reactor


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: autobahn_fuzzingserver.py SPEC.json\n")
        return 2
    with open(argv[1]) as f:
        spec = json.load(f)
    # The factory parses the URL for its port; 0 would make it check Host headers
    # against port 0, so it is fixed up once the real port is known.
    spec["url"] = "ws://127.0.0.1:9"
    # The fuzzing server prints its banner on stdout; keep stdout for the contract.
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    factory = fuzzing.FuzzingServerFactory(spec)
    port = reactor.listenTCP(0, factory, interface="127.0.0.1").getHost().port
    factory.port = port
    factory.externalPort = port
    factory.url = "ws://127.0.0.1:%d" % port
    real_stdout.write("PORT %d\nCASES %d\n" % (port, len(factory.specCases)))
    real_stdout.flush()
    reactor.run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""A reference Autobahn client built on `websockets`, used to validate scripts/autobahn.sh.

Speaks the fuzzing server's client protocol: /getCaseCount, then /runCase?case=N&agent=A
for every case (echoing each text and binary message back unchanged), then
/updateReports?agent=A. This is the same protocol `rtcat autobahn` implements.

Usage: python autobahn_client.py ws://127.0.0.1:PORT [--agent NAME]
"""

import argparse
import asyncio
import os
import sys

# websockets caps a message at 4096 fragments by default; section 9 sends 4 MiB in 64-byte
# fragments (65536 of them), which the protocol allows.
os.environ.setdefault("WEBSOCKETS_MAX_FRAGMENTS", "1000000")

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidMessage


async def run_case(base, number, agent):
    try:
        # No size limit and no compression: the server decides what to send; sections
        # 12 and 13 (permessage-deflate) are not part of this run.
        async with connect(
            f"{base}/runCase?case={number}&agent={agent}",
            max_size=None,
            compression=None,
            ping_interval=None,
            open_timeout=10,
            close_timeout=5,
        ) as ws:
            async for message in ws:
                await ws.send(message)
    except (ConnectionClosed, InvalidHandshake, InvalidMessage, OSError, asyncio.TimeoutError):
        pass  # Many cases end in a protocol error on purpose; the server judges them.


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--agent", default="python-websockets")
    args = parser.parse_args()
    base = args.url.rstrip("/")

    async with connect(f"{base}/getCaseCount") as ws:
        count = int(await ws.recv())
    print(f"autobahn_client: {count} cases", flush=True)
    for number in range(1, count + 1):
        await run_case(base, number, args.agent)
    async with connect(f"{base}/updateReports?agent={args.agent}", open_timeout=60, close_timeout=120) as ws:
        try:
            await ws.recv()
        except ConnectionClosed:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

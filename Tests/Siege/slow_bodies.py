#!/usr/bin/env python3
"""An attacker's slow bodies, for the intake siege test (issue 25).

Holds --connections connections to 127.0.0.1:--port, each announcing a 1,000-byte receipt
and trickling it one byte every --interval seconds, so that an idle timeout never fires. A
connection the server closes (or refuses) is opened again at its next turn, as a persistent
attacker would. Prints its counts as one JSON line a second; stops after --seconds, or on
SIGTERM, closing everything. One process holds at most what its file limit allows, so the
test runs two.
"""
import argparse
import asyncio
import json
import signal
import sys

HEAD = (
    b"POST /v1/receipts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Content-Length: 1000\r\n\r\n"
)
TICK = 0.1


class Counts:
    def __init__(self):
        self.open = 0
        self.connected = 0
        self.closed_by_server = 0
        self.failed_connects = 0
        self.stopping = False

    def line(self):
        return json.dumps({
            "open": self.open, "connected": self.connected,
            "closed_by_server": self.closed_by_server, "failed_connects": self.failed_connects,
        })


class Slot(asyncio.Protocol):
    def __init__(self, counts):
        self.counts = counts
        self.transport = None
        self.connecting = False

    def connection_made(self, transport):
        self.transport = transport
        self.counts.open += 1
        self.counts.connected += 1
        transport.write(HEAD)

    def connection_lost(self, exc):
        if self.transport is not None:
            self.transport = None
            self.counts.open -= 1
            if not self.counts.stopping:
                self.counts.closed_by_server += 1


async def connect(loop, slot, port, counts):
    slot.connecting = True
    try:
        await asyncio.wait_for(loop.create_connection(lambda: slot, "127.0.0.1", port), timeout=30)
    except (OSError, asyncio.TimeoutError):
        counts.failed_connects += 1
    finally:
        slot.connecting = False


async def siege(args):
    loop = asyncio.get_running_loop()
    counts = Counts()
    slots = [Slot(counts) for _ in range(args.connections)]
    stop = asyncio.Event()
    # A test runner may hand its children SIGTERM blocked; it must arrive here.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    turns = max(1, round(args.interval / TICK))
    tick = 0
    started = loop.time()
    last_print = 0.0
    while not stop.is_set() and loop.time() - started < args.seconds:
        for slot in slots[tick % turns::turns]:
            if slot.transport is not None:
                slot.transport.write(b" ")
            elif not slot.connecting:
                loop.create_task(connect(loop, slot, args.port, counts))
        tick += 1
        if loop.time() - last_print >= 1:
            last_print = loop.time()
            print(counts.line(), flush=True)
        try:
            await asyncio.wait_for(stop.wait(), timeout=TICK)
        except asyncio.TimeoutError:
            pass
    counts.stopping = True
    print(counts.line(), flush=True)
    for slot in slots:
        if slot.transport is not None:
            slot.transport.abort()
    await asyncio.sleep(0.5)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--connections", type=int, default=10_000)
    parser.add_argument("--interval", type=float, default=10)
    parser.add_argument("--seconds", type=float, default=120)
    asyncio.run(siege(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())

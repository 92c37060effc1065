#!/usr/bin/env python3
"""The WebSocket check's client (the Python `websockets` library): one conversation with URL, its
outcome printed as one line per item, so that the answers through the gateway can be compared with
the upstream's own, line for line.

    ws_client.py URL [CA_FILE]

The subprotocol and extension agreed on, a text echo, a 3 MB binary echo (compared, not printed), a
message sent in 50 fragments and echoed whole, a ping answered, the upstream's close (code and
reason), and a close the client begins (the code it gets back)."""
import asyncio
import hashlib
import ssl
import sys

import websockets

URL = sys.argv[1]
TLS = None
if len(sys.argv) > 2:
    TLS = ssl.create_default_context(cafile=sys.argv[2])


async def conversation():
    lines = []
    async with websockets.connect(
        URL, subprotocols=["chat.v2"], max_size=None, compression="deflate", ssl=TLS, open_timeout=10
    ) as ws:
        lines.append("subprotocol " + str(ws.subprotocol))
        lines.append("extensions " + ",".join(sorted(e.name for e in ws.protocol.extensions)))
        await ws.send("hello")
        lines.append("text " + await ws.recv())
        big = bytes((i * 7 + 3) % 251 for i in range(3_000_000))
        await ws.send(big)
        echoed = await ws.recv()
        lines.append("binary " + str(len(echoed)) + " " + hashlib.sha256(echoed).hexdigest()[:16]
                     + (" same" if echoed == big else " DIFFERENT"))

        async def fragments():
            for i in range(50):
                yield "part%d-" % i

        await ws.send(fragments())
        whole = await ws.recv()
        lines.append("fragmented " + ("whole" if whole == "".join("part%d-" % i for i in range(50)) else "BROKEN"))
        pong = await ws.ping(b"are you there")
        await asyncio.wait_for(pong, 10)
        lines.append("ping answered")
        await ws.send("close-4001")
        try:
            await asyncio.wait_for(ws.recv(), 10)
            lines.append("upstream close MISSING")
        except websockets.ConnectionClosed as e:
            lines.append("upstream close %s %s" % (e.rcvd.code if e.rcvd else None, e.rcvd.reason if e.rcvd else None))
    async with websockets.connect(URL, subprotocols=["chat.v1"], ssl=TLS, open_timeout=10) as ws:
        await ws.close(4002, "bye from client")
        lines.append("client close %s %s" % (ws.close_code, ws.close_reason))
    print("\n".join(lines))


asyncio.run(asyncio.wait_for(conversation(), 60))

#!/usr/bin/env python3
"""The WebSocket check's upstream: a real WebSocket server (the Python `websockets` library) that
offers the subprotocols chat.v1 and chat.v2 and permessage-deflate, echoes every message, and closes
with code 4001 and reason "bye from upstream" when it is sent the text "close-4001".

Binds port 0 on 127.0.0.1, keeps it bound, and prints "PORT <n>" once serving."""
import asyncio

import websockets


async def echo(ws):
    try:
        async for message in ws:
            if message == "close-4001":
                await ws.close(4001, "bye from upstream")
                return
            await ws.send(message)
    except websockets.ConnectionClosed:
        pass


async def main():
    async with websockets.serve(
        echo, "127.0.0.1", 0, subprotocols=["chat.v1", "chat.v2"], max_size=None, compression="deflate"
    ) as server:
        print("PORT", server.sockets[0].getsockname()[1], flush=True)
        await asyncio.Future()


asyncio.run(main())

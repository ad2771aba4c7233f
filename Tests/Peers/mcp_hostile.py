"""Hostile MCP peer: an aiohttp server whose Streamable HTTP endpoints break the protocol.

Every endpoint is /<case>/mcp. `initialize` is answered with JSON and Mcp-Session-Id "s1",
`notifications/initialized` (and any other notification or response) with 202, and a GET
without Last-Event-ID with 405. `tools/call` then misbehaves by case:

  early       an SSE stream with one notification, then the end (no event ids)
  progressflood an SSE stream of 5,000 progress notifications (200 bytes of padding each),
              then the response
  late        tools/call answers "ok" as JSON 3 s after the POST (a slow tool: no byte before)
  latesse     tools/call starts its SSE answer 3 s after the POST, then sends the response
  cached      tools/list answers one tool with ttlMs 60000 and cacheScope "private";
              tools/call answers an SSE stream with notifications/tools/list_changed, then
              "ok". GET /cached/lists counts the tools/list requests
  listen      a 2026-07-28 server (server/discover answers it): every subscriptions/listen
              gets an SSE stream with the acknowledgement (honoring only toolsListChanged) and
              notifications/tools/list_changed, both stamped with the subscription id, then
              notifications/prompts/list_changed (not honored); the first stream is then
              cut, the second ends with the listen result, the third is answered with the
              JSON-RPC error -32601. GET /listen/listens counts the listen requests
  listen403   a 2026-07-28 server that refuses every subscriptions/listen with 403; GET
              /listen403/listens counts them
  listenflood a 2026-07-28 server whose listen stream is acknowledged (toolsListChanged and
              the resources "file:///a" and "file:///last"), then sends resources/updated
              "file:///a", 20000 notifications/tools/list_changed and 20000 prompts list changes
              (not honored) interleaved, resources/updated "file:///last", and stays open;
              GET /listenflood/flood answers once the flood is written

The other misbehaving servers are played on the embedded stack (EmbeddedMCPHostileTests).

GET /<case>/posts returns the POST count per "method id" key (notifications counted as
"method -"); every test asserts no key was POSTed twice.
"""

import asyncio
import json
import sys

from aiohttp import web

import peer_common

POSTS = {}


def record(case, message):
    key = f"{case} {message.get('method', 'response')} {message.get('id', '-')}"
    POSTS[key] = POSTS.get(key, 0) + 1


def sse(data, event_id=None, retry=None):
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    if retry is not None:
        lines.append(f"retry: {retry}")
    lines.append(f"data: {data if isinstance(data, str) else json.dumps(data)}")
    return ("\n".join(lines) + "\n\n").encode()


def result(request_id, text="ok"):
    return {"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": text}]}}


def progress(token, n):
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": n}}


async def stream_response(request):
    response = web.StreamResponse(status=200, headers={"Content-Type": "text/event-stream", "Mcp-Session-Id": "s1"})
    await response.prepare(request)
    return response


async def handle_post(request):
    case = request.match_info["case"]
    message = json.loads(await request.read())
    record(case, message)
    method = message.get("method")
    if method == "initialize":
        body = {"jsonrpc": "2.0", "id": message["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1"}}}
        return web.json_response(body, headers={"Mcp-Session-Id": "s1"})
    if method == "server/discover" and case in ("listen", "listenflood", "listen403"):
        return web.json_response({"jsonrpc": "2.0", "id": message["id"], "result": {
            "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {"listChanged": True}}}})
    if method == "server/discover":
        return web.json_response({"jsonrpc": "2.0", "id": message["id"],
                                  "error": {"code": -32601, "message": "Method not found"}})
    if method == "subscriptions/listen" and case == "listen":
        return await listen(request, message)
    if method == "subscriptions/listen" and case == "listen403":
        LISTENS[case] = LISTENS.get(case, 0) + 1
        return web.Response(status=403, text="no listening here")
    if method == "subscriptions/listen" and case == "listenflood":
        return await listen_flood(request, message)
    if "id" not in message or method is None:
        return web.Response(status=202)
    if case == "cached" and method == "tools/list":
        LISTS["count"] += 1
        return web.json_response({"jsonrpc": "2.0", "id": message["id"], "result": {
            "tools": [{"name": "x", "inputSchema": {"type": "object"}}], "ttlMs": 60000, "cacheScope": "private"}})
    if case == "cached" and method == "tools/call":
        response = await stream_response(request)
        await response.write(sse({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))
        await response.write(sse(result(message["id"])))
        return response
    if method != "tools/call":
        return web.json_response({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}})
    return await misbehave(case, request, message)


async def misbehave(case, request, message):
    rid = message["id"]
    token = message.get("params", {}).get("_meta", {}).get("progressToken", rid)
    if case.startswith("late"):
        await asyncio.sleep(3)
        if case == "late":
            return web.json_response(result(rid))
    response = await stream_response(request)
    if case == "early":
        await response.write(sse(progress(token, 1)))
    elif case == "progressflood":
        # 5,000 notifications with room to spare in each, then the answer: a reader that is
        # behind must slow this down, not buffer it.
        pad = "p" * 200
        for n in range(5000):
            note = progress(token, n)
            note["params"]["message"] = pad
            await response.write(sse(note))
        await response.write(sse(result(rid)))
    elif case == "latesse":
        await response.write(sse(result(rid)))
    return response


LISTENS = {"count": 0}
LISTS = {"count": 0}


async def listen(request, message):
    """The `listen` case: acknowledged streams that are cut, then ended, then refused."""
    rid = message["id"]
    LISTENS["count"] += 1
    n = LISTENS["count"]
    if n >= 3:
        return web.json_response({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
    meta = {"io.modelcontextprotocol/subscriptionId": rid}
    response = await stream_response(request)
    await response.write(sse({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                              "params": {"notifications": {"toolsListChanged": True}, "_meta": meta}}))
    await response.write(sse({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": meta}}))
    await response.write(sse({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed", "params": {"_meta": meta}}))
    if n == 1:
        request.transport.close()
        return response
    await response.write(sse({"jsonrpc": "2.0", "id": rid, "result": {"_meta": meta}}))
    return response


FLOODED = asyncio.Event()


async def handle_flood(request):
    await FLOODED.wait()
    return web.json_response({"written": True})


async def listen_flood(request, message):
    """The `listenflood` case: one change the reader needs, buried under a flood."""
    meta = {"io.modelcontextprotocol/subscriptionId": message["id"]}
    response = await stream_response(request)
    honored = {"toolsListChanged": True, "resourceSubscriptions": ["file:///a", "file:///last"]}
    await response.write(sse({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                              "params": {"notifications": honored, "_meta": meta}}))

    def note(method, **params):
        return sse({"jsonrpc": "2.0", "method": method, "params": {**params, "_meta": meta}})

    await response.write(note("notifications/resources/updated", uri="file:///a"))
    tools, prompts = note("notifications/tools/list_changed"), note("notifications/prompts/list_changed")
    for _ in range(40):
        await response.write((tools + prompts) * 500)
    await response.write(note("notifications/resources/updated", uri="file:///last"))
    FLOODED.set()
    for _ in range(600):
        await asyncio.sleep(0.1)
    return response


async def handle_lists(request):
    return web.json_response(LISTS)


async def handle_listens(request):
    return web.json_response(LISTENS)


async def handle_get(request):
    return web.Response(status=405)


async def handle_delete(request):
    return web.Response(status=200)


async def handle_posts(request):
    case = request.match_info["case"]
    return web.json_response({k: v for k, v in POSTS.items() if k.startswith(case + " ")})


async def main():
    args = peer_common.parse_args(__doc__.splitlines()[0])
    sock = peer_common.bind_socket(args.host)
    app = web.Application()
    app.router.add_post("/{case}/mcp", handle_post)
    app.router.add_get("/{case}/mcp", handle_get)
    app.router.add_delete("/{case}/mcp", handle_delete)
    app.router.add_get("/{case}/posts", handle_posts)
    app.router.add_get("/{case}/listens", handle_listens)
    app.router.add_get("/{case}/lists", handle_lists)
    app.router.add_get("/{case}/flood", handle_flood)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.SockSite(runner, sock)
    await site.start()
    peer_common.announce(sock)
    await peer_common.wait_for_stop(args)
    await runner.cleanup()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)

"""Hostile MCP peer: an aiohttp server whose Streamable HTTP endpoints break the protocol.

Every endpoint is /<case>/mcp. `initialize` is answered with JSON and Mcp-Session-Id "s1",
`notifications/initialized` (and any other notification or response) with 202, and a GET
without Last-Event-ID with 405. `tools/call` then misbehaves by case:

  gone        404: the session is gone
  wrongtype   200 text/plain
  batch       an SSE stream whose one event is a JSON-RPC batch holding the response
  badid       an SSE stream whose response answers id 999
  endless     an SSE stream of progress notifications every 50 ms that never answers
  early       an SSE stream with one notification, then the end (no event ids)
  replay      progress events id 1 and 2 (retry: 50), then the stream is cut; a GET with
              Last-Event-ID 2 sends ids 1 and 2 again, then progress id 3 and the response id 4
  cutting*    progress id 1 (retry: 20), then the stream is cut; every GET with Last-Event-ID n
              sends progress id n + 1 and is cut again, so the request never completes (any
              case name starting with "cutting": one per resumption limit under test)
  asks*       an SSE stream that sends the client a request (sampling/createMessage, id
              "ask"), waits up to 10 s for the client's answer, then sends the response
  flood       an SSE stream that sends the client 20 requests (sampling/createMessage, ids
              "ask0"…"ask19") at once, waits up to 10 s for 16 refusals (-32000), then sends
              the response with the text "<n> refused"
  badsession  initialize answers Mcp-Session-Id "bad id" (a space: not visible ASCII)
  reissue     tools/list: the first answer's stream is cut (no event id), later ones list "safe"
              (readOnlyHint) and "unsafe"; tools/call "safe": the first stream is cut, then "ok";
              tools/call "unsafe": every stream is cut. GET /reissue/runs counts the calls per tool
  keepalive   an SSE stream of ": keep-alive" comments every 100 ms for 4 s, then the response
  legacyonly  a POST with MCP-Protocol-Version 2026-07-28 gets 400 without a body;
              tools/call answers {"content": [{"type": "text", "text": "ok"}]} as JSON
  bigjson     tools/call answers a JSON body of 2 MiB
  badutf8     tools/call answers a JSON body holding the byte 0xE9 alone (not UTF-8)
  late        tools/call answers "ok" as JSON 3 s after the POST (a slow tool: no byte before)
  latesse     tools/call starts its SSE answer 3 s after the POST, then sends the response
  auth        every request without "Authorization: Bearer good" gets 401 (and is not
              counted); tools/call then answers "ok" as JSON
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
  noendpoint  an HTTP+SSE GET stream that never names an endpoint (comments only, for 10 s)
  htmlinit    initialize is answered 200 text/html
  evilorigin  an HTTP+SSE (2024-11-05) server: the GET stream's endpoint event names this same
              server under another origin (http://localhost:<port>/evilorigin/mcp); a POST
              that followed it would be counted in /evilorigin/posts
  stateloop   a 2026-07-28 server whose tools/call answers input_required (an elicitation and
              requestState "state-<n>") every time, forever; GET /stateloop/states lists the
              requestState each tools/call POST carried (null for the first)
  listenflood a 2026-07-28 server whose listen stream is acknowledged (toolsListChanged and
              the resources "file:///a" and "file:///last"), then sends resources/updated
              "file:///a", 20000 notifications/tools/list_changed and 20000 prompts list changes
              (not honored) interleaved, resources/updated "file:///last", and stays open;
              GET /listenflood/flood answers once the flood is written

GET /<case>/posts returns the POST count per "method id" key (notifications counted as
"method -"); every test asserts no key was POSTed twice. GET /<case>/gets returns how many
GETs with Last-Event-ID the case received; GET /<case>/answers the answers the client POSTed
to the server's requests; GET /<case>/deletes the Mcp-Session-Id of every DELETE.
GET /<case>/stopped waits (30 s at most) for the endless writer to find its stream closed.
"""

import asyncio
import json
import sys

from aiohttp import web

import peer_common

POSTS = {}
RESUMES = {}
ANSWERS = {}
ANSWERED = {}
DELETES = {}
STOPPED = {}


def answered(case):
    return ANSWERED.setdefault(case, asyncio.Event())


def stopped(case):
    return STOPPED.setdefault(case, asyncio.Event())


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
    if case == "auth" and request.headers.get("Authorization") != "Bearer good":
        return web.Response(status=401, headers={"WWW-Authenticate": "Bearer"})
    record(case, message)
    version = request.headers.get("MCP-Protocol-Version")
    if case == "legacyonly" and version == "2026-07-28":
        return web.Response(status=400)
    method = message.get("method")
    if case == "htmlinit" and method == "initialize":
        return web.Response(status=200, text="<html>not MCP</html>", content_type="text/html")
    if method == "initialize":
        body = {"jsonrpc": "2.0", "id": message["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1"}}}
        session = "bad id" if case == "badsession" else "s1"
        return web.json_response(body, headers={"Mcp-Session-Id": session})
    if method == "server/discover" and case in ("listen", "listenflood", "stateloop", "listen403"):
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
    if method is None and "id" in message:
        ANSWERS.setdefault(case, []).append(message)
        answered(case).set()
    if "id" not in message or method is None:
        return web.Response(status=202)
    if case == "reissue":
        return await reissue(request, message)
    if case == "stateloop" and method == "tools/call":
        STATES.append(message.get("params", {}).get("requestState"))
        ask = {"method": "elicitation/create", "params": {
            "message": "again?", "requestedSchema": {"type": "object", "properties": {}}}}
        return web.json_response({"jsonrpc": "2.0", "id": message["id"], "result": {
            "resultType": "input_required", "inputRequests": {"again": ask},
            "requestState": f"state-{len(STATES)}"}})
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
    if case == "gone":
        return web.Response(status=404)
    if case == "wrongtype":
        return web.Response(status=200, text="hello", content_type="text/plain")
    if case in ("legacyonly", "auth"):
        return web.json_response(result(rid))
    if case == "badutf8":
        head = json.dumps(result(rid, "caf")).encode()
        return web.Response(body=head.replace(b'"caf"', b'"caf\xe9"'), content_type="application/json")
    if case == "bigjson":
        return web.json_response(result(rid, "x" * (2 << 20)))
    if case.startswith("late"):
        await asyncio.sleep(3)
        if case == "late":
            return web.json_response(result(rid))
    response = await stream_response(request)
    if case == "batch":
        await response.write(sse([result(rid)]))
    elif case == "badid":
        await response.write(sse(result(999)))
    elif case == "endless":
        try:
            for n in range(100000):
                await response.write(sse(progress(token, n)))
                await asyncio.sleep(0.05)
        except (ConnectionError, RuntimeError):
            # The client closed the stream (its request ended): the writer stops here.
            stopped(case).set()
            raise
    elif case == "early":
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
    elif case.startswith("asks"):
        await response.write(sse({"jsonrpc": "2.0", "id": "ask", "method": "sampling/createMessage", "params": {}}))
        try:
            await asyncio.wait_for(answered(case).wait(), timeout=10)
        except asyncio.TimeoutError:
            pass
        await response.write(sse(result(rid)))
    elif case == "flood":
        for n in range(20):
            await response.write(sse({"jsonrpc": "2.0", "id": f"ask{n}", "method": "sampling/createMessage", "params": {}}))
        refused = 0
        for _ in range(200):
            refused = sum(1 for a in ANSWERS.get(case, []) if a.get("error", {}).get("code") == -32000)
            if refused >= 16:
                break
            await asyncio.sleep(0.05)
        await response.write(sse(result(rid, f"{refused} refused")))
    elif case.startswith("cutting"):
        await response.write(sse(progress(token, 1), event_id=1, retry=20))
        REPLAY[case] = (rid, token)
        request.transport.close()
        return response
    elif case == "replay":
        REPLAY[case] = (rid, token)
        await response.write(sse(progress(token, 1), event_id=1, retry=50))
        await response.write(sse(progress(token, 2), event_id=2))
        request.transport.close()
        return response
    elif case == "latesse":
        await response.write(sse(result(rid)))
    elif case == "keepalive":
        # 4 s of comments 100 ms apart against a 2 s idle timeout: silence would time the
        # request out twice over, and a loaded machine has 1.9 s of slack per comment.
        for _ in range(40):
            await response.write(b": keep-alive\n\n")
            await asyncio.sleep(0.1)
        await response.write(sse(result(rid)))
    return response


REPLAY = {}
RUNS = {}
STATES = []
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


async def reissue(request, message):
    """The `reissue` case: a cut stream (no event id) on the first answer of each kind."""
    rid = message["id"]
    key = message.get("params", {}).get("name") or message["method"]
    RUNS[key] = RUNS.get(key, 0) + 1
    if RUNS[key] == 1 or key == "unsafe":
        response = await stream_response(request)
        await response.write(b": working\n\n")
        request.transport.close()
        return response
    if message["method"] == "tools/list":
        tools = [{"name": "safe", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
                 {"name": "unsafe", "inputSchema": {"type": "object"}}]
        return web.json_response({"jsonrpc": "2.0", "id": rid, "result": {"tools": tools}})
    return web.json_response(result(rid))


async def handle_states(request):
    return web.json_response(STATES)


async def handle_lists(request):
    return web.json_response(LISTS)


async def handle_listens(request):
    return web.json_response(LISTENS)


async def handle_runs(request):
    return web.json_response(RUNS)


async def handle_get(request):
    case = request.match_info["case"]
    last = request.headers.get("Last-Event-ID")
    if case == "noendpoint":
        response = await stream_response(request)
        for _ in range(100):
            await response.write(b": an event stream that names no endpoint\n\n")
            await asyncio.sleep(0.1)
        return response
    if case == "evilorigin":
        response = await stream_response(request)
        await response.write(f"event: endpoint\ndata: http://localhost:{request.url.port}/evilorigin/mcp\n\n".encode())
        for _ in range(100):
            await asyncio.sleep(0.1)
        return response
    if last is not None:
        RESUMES[case] = RESUMES.get(case, 0) + 1
    if case.startswith("cutting") and last is not None and case in REPLAY:
        _, token = REPLAY[case]
        response = await stream_response(request)
        await response.write(sse(progress(token, int(last) + 1), event_id=int(last) + 1))
        request.transport.close()
        return response
    if case != "replay" or last is None or case not in REPLAY:
        return web.Response(status=405)
    rid, token = REPLAY[case]
    response = await stream_response(request)
    await response.write(sse(progress(token, 1), event_id=1))
    await response.write(sse(progress(token, 2), event_id=2))
    await response.write(sse(progress(token, 3), event_id=3))
    await response.write(sse(result(rid, "resumed"), event_id=4))
    return response


async def handle_delete(request):
    DELETES.setdefault(request.match_info["case"], []).append(request.headers.get("Mcp-Session-Id"))
    return web.Response(status=200)


async def handle_posts(request):
    case = request.match_info["case"]
    return web.json_response({k: v for k, v in POSTS.items() if k.startswith(case + " ")})


async def handle_gets(request):
    return web.json_response(RESUMES.get(request.match_info["case"], 0))


async def handle_answers(request):
    return web.json_response(ANSWERS.get(request.match_info["case"], []))


async def handle_stopped(request):
    # Whether the case's endless writer stopped because the client closed its stream, waiting
    # up to 30 s for it.
    try:
        await asyncio.wait_for(stopped(request.match_info["case"]).wait(), timeout=30)
        return web.json_response(True)
    except asyncio.TimeoutError:
        return web.json_response(False)


async def handle_deletes(request):
    return web.json_response(DELETES.get(request.match_info["case"], []))


async def main():
    args = peer_common.parse_args(__doc__.splitlines()[0])
    sock = peer_common.bind_socket(args.host)
    app = web.Application()
    app.router.add_post("/{case}/mcp", handle_post)
    app.router.add_get("/{case}/mcp", handle_get)
    app.router.add_delete("/{case}/mcp", handle_delete)
    app.router.add_get("/{case}/posts", handle_posts)
    app.router.add_get("/{case}/gets", handle_gets)
    app.router.add_get("/{case}/answers", handle_answers)
    app.router.add_get("/{case}/deletes", handle_deletes)
    app.router.add_get("/{case}/stopped", handle_stopped)
    app.router.add_get("/{case}/runs", handle_runs)
    app.router.add_get("/{case}/listens", handle_listens)
    app.router.add_get("/{case}/lists", handle_lists)
    app.router.add_get("/{case}/flood", handle_flood)
    app.router.add_get("/{case}/states", handle_states)
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

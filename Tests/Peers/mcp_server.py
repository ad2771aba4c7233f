"""MCP peer: the Python `mcp` SDK's Streamable HTTP server (MCPServer), served by uvicorn.

Endpoint: POST/GET/DELETE /mcp. Both wire generations are served at once: the SDK routes a
request whose MCP-Protocol-Version header names 2026-07-28 to its stateless single-exchange
entry, everything else to the initialize/Mcp-Session-Id transport.

Modes (options):
  --json-response   answer POSTs with application/json instead of an SSE stream
  --stateless       no Mcp-Session-Id, no GET stream (stateless_http=True)
  --event-store     keep every SSE event in memory so a cut stream resumes through GET with
                    Last-Event-ID (priming events with empty data, ids on every event)
  --retry-ms N      the `retry:` the priming events carry (with --event-store)
  --legacy-sse      serve the 2024-11-05 HTTP+SSE transport instead (the SDK's sse_app):
                    GET /sse opens the stream, whose `endpoint` event names the POST path
                    (/messages/?session_id=…); POST /sse answers 405

Tools:
  echo(text)                       returns text
  add(a, b)                        returns a + b as text
  progress(steps, delay)           one progress notification per step, then "done <steps>"
  cut(steps, delay)                like progress, but closes its SSE stream after the first
                                   step (ctx.close_sse_stream); steps 2 .. steps-1 are stored
                                   while the client is away and reach it through the replay,
                                   the last step and the result on the resumed live stream
  sleep(seconds)                   waits, then returns "slept"; cancellable
  roots()                          asks the client for its roots (server-to-client request)
  ping_client()                    sends the client a ping, returns "pong"
  notify_resource()                sends notifications/resources/updated for res://greeting
  list_changed()                   sends notifications/tools/list_changed on the session's
                                   GET stream (no related request)
  confirm(action)                  2026-07-28 multi-round trip: the first round answers
                                   input_required with an elicitation/create ("Confirm
                                   <action>?", a boolean "ok") and requestState "round-1";
                                   the second (with the elicitation's result and the state)
                                   asks for roots/list with requestState "round-2"; the third
                                   answers "<action>: <accept|decline> ok=<ok> roots=<n>
                                   state=<state>"
  regional(region, count)          returns "<region> <count>"; both arguments are marked
                                   x-mcp-header (Region, Count), so a 2026-07-28 call must
                                   carry them as Mcp-Param-Region and Mcp-Param-Count
  trace_id()                       the trace id (32 hex digits) of the span the SDK's tracing
                                   runs the call in: the client's `_meta.traceparent` parents it
  flaky_read(), flaky_write()      each run counts itself (GET /runs), sends a progress step
                                   and answers ("read <run>", "written"); the POST wrapper ends
                                   the response stream after its first event for the first
                                   flaky_read call (annotated readOnlyHint) and every
                                   flaky_write call, so their answers are lost
  publish(kind, uri)               publishes a change to the 2026-07-28 `subscriptions/listen`
                                   streams (the SDK's subscription bus): kind is tools,
                                   prompts, resources or updated (with uri)
GET /cancelled returns the `steps` of every progress call the server cancelled;
GET /cancelled?steps=N answers once a call of N steps was cancelled (or after 10 s).
GET /replays returns the progress values the event store replayed, in order.
GET /runs returns how many times flaky_read and flaky_write ran.
GET /posts returns how many times each JSON-RPC message was POSTed ("method id" keys;
notifications as "method -"): the tests assert that no request was POSTed twice.
Resources: res://greeting (text "hello"), res://n/{i} template. Prompt: greet(name).
"""

import asyncio
import itertools
import json
import sys
from typing import Annotated

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field
from mcp_types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult, ListRootsRequest, ToolAnnotations
from mcp.server.streamable_http import EventMessage, EventStore, StreamableHTTPServerTransport

import peer_common


class MemoryEventStore(EventStore):
    """Every event of every stream, in order; ids are global counters (unique per session).

    The SDK takes a replay's events, then re-registers the stream for live messages after more
    awaits; a message stored in between is neither replayed nor sent (the SDK says so at the
    registration). `cut` therefore holds the replay until its offline steps are stored
    (`hold`/`release`) and sends the rest only once the stream is live again (`LiveStreams`),
    so the test sees each message once whatever the machine's load.
    """

    def __init__(self):
        self.events = []  # (event_id, stream_id, message)
        self.counter = itertools.count(1)
        self.changed = asyncio.Condition()
        self.held = set()
        self.replayed_progress = []

    async def store_event(self, stream_id, message):
        event_id = str(next(self.counter))
        self.events.append((event_id, stream_id, message))
        async with self.changed:
            self.changed.notify_all()
        return event_id

    def messages(self, stream_id):
        return sum(1 for _, sid, message in self.events if sid == stream_id and message is not None)

    async def wait(self, predicate, timeout=10.0):
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(predicate), timeout)

    def hold(self, stream_id):
        self.held.add(stream_id)

    async def release(self, stream_id):
        self.held.discard(stream_id)
        async with self.changed:
            self.changed.notify_all()

    async def replay_events_after(self, last_event_id, send_callback):
        index = next((i for i, e in enumerate(self.events) if e[0] == last_event_id), None)
        if index is None:
            return None
        stream_id = self.events[index][1]
        await self.wait(lambda: stream_id not in self.held)
        for event_id, sid, message in list(self.events[index + 1:]):
            if sid == stream_id and message is not None:
                self.replayed_progress.append(progress_of(message))
                await send_callback(EventMessage(message, event_id))
        return stream_id


def progress_of(message):
    params = getattr(message, "params", None) or {}
    return params.get("progress") if isinstance(params, dict) else getattr(params, "progress", None)


class LiveStreams(dict):
    """The transport's table of live request streams, announcing each registration."""

    changed = None

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        if LiveStreams.changed is not None:
            LiveStreams.changed.set()

    @staticmethod
    def live(key):
        return any(key in transport._request_streams for transport in TRANSPORTS)

    @staticmethod
    async def wait_for(key, timeout=10.0):
        """Returns once a transport has `key` live again, or after `timeout` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not LiveStreams.live(key) and loop.time() < deadline:
            LiveStreams.changed.clear()
            try:
                await asyncio.wait_for(LiveStreams.changed.wait(), deadline - loop.time())
            except asyncio.TimeoutError:
                break


def watch_live_streams():
    """Every StreamableHTTPServerTransport keeps its live streams in a LiveStreams table."""
    original = StreamableHTTPServerTransport.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self._request_streams = LiveStreams(self._request_streams)
        TRANSPORTS.append(self)

    LiveStreams.changed = asyncio.Event()
    StreamableHTTPServerTransport.__init__ = init


TRANSPORTS = []
STORE = None


CANCELLED = []  # the `steps` of each progress call the server cancelled
CANCELLED_CHANGED = asyncio.Event()


async def wait_for_cancellation(steps, timeout=10.0):
    """Returns once a progress call of `steps` was cancelled, or after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while steps not in CANCELLED and loop.time() < deadline:
        CANCELLED_CHANGED.clear()
        try:
            await asyncio.wait_for(CANCELLED_CHANGED.wait(), deadline - loop.time())
        except asyncio.TimeoutError:
            break


CONFIRMED = {}  # confirm(action): the elicitation's answer, between rounds
RUNS = {}  # flaky_read / flaky_write: how many times each ran


def build_server():
    server = MCPServer(name="realtime-mcp-peer", version="1.0")

    @server.tool()
    def echo(text: str) -> str:
        """Returns its text."""
        return text

    @server.tool()
    def add(a: int, b: int) -> str:
        """Adds two integers."""
        return str(a + b)

    @server.tool()
    async def progress(steps: int, delay: float, ctx: Context) -> str:
        """Reports one progress notification per step."""
        try:
            for step in range(1, steps + 1):
                await ctx.report_progress(step, steps, f"step {step}")
                await asyncio.sleep(delay)
        except asyncio.CancelledError:
            CANCELLED.append(steps)
            CANCELLED_CHANGED.set()
            raise
        return f"done {steps}"

    @server.tool()
    async def cut(steps: int, delay: float, ctx: Context) -> str:
        """Closes its stream after the first step; the middle steps come back through the replay."""
        stream_id = str(ctx.request_id)
        STORE.hold(stream_id)
        try:
            for step in range(1, steps):
                await ctx.report_progress(step, steps, f"step {step}")
                if step == 1:
                    await ctx.close_sse_stream()
                await asyncio.sleep(delay)
            await STORE.wait(lambda: STORE.messages(stream_id) >= steps - 1)
        finally:
            await STORE.release(stream_id)
        await LiveStreams.wait_for(stream_id)
        await ctx.report_progress(steps, steps, f"step {steps}")
        return f"done {steps}"

    @server.tool()
    async def sleep(seconds: float) -> str:
        """Waits."""
        await asyncio.sleep(seconds)
        return "slept"

    @server.tool()
    async def roots(ctx: Context) -> str:
        """Asks the client for its roots."""
        result = await ctx.session.list_roots()
        return ",".join(str(r.uri) for r in result.roots)

    @server.tool()
    async def ping_client(ctx: Context) -> str:
        """Pings the client."""
        await ctx.session.send_ping()
        return "pong"

    @server.tool()
    async def notify_resource(ctx: Context) -> str:
        """Tells the client res://greeting changed."""
        await ctx.session.send_resource_updated("res://greeting")
        return "sent"

    @server.tool()
    async def list_changed(ctx: Context) -> str:
        """Sends notifications/tools/list_changed outside the request (the GET stream)."""
        await ctx.session.send_tool_list_changed()
        return "sent"

    @server.tool()
    async def confirm(action: str, ctx: Context) -> str | InputRequiredResult:
        """Asks the client for a confirmation, then for its roots, before answering."""
        responses = ctx.input_responses or {}
        if ctx.request_state is None:
            form = ElicitRequestFormParams(
                message=f"Confirm {action}?",
                requested_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]})
            return InputRequiredResult(input_requests={"confirm": ElicitRequest(params=form)}, request_state="round-1")
        if ctx.request_state == "round-1":
            CONFIRMED[action] = responses["confirm"]
            return InputRequiredResult(input_requests={"roots": ListRootsRequest()}, request_state="round-2")
        answer = CONFIRMED.pop(action)
        roots = len(responses["roots"].roots)
        ok = (answer.content or {}).get("ok")
        return f"{action}: {answer.action} ok={ok} roots={roots} state={ctx.request_state}"

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    async def flaky_read(ctx: Context) -> str:
        """Reads; its first answer is lost (the POST wrapper ends the stream before it)."""
        RUNS["flaky_read"] = RUNS.get("flaky_read", 0) + 1
        await ctx.report_progress(1, 2, "working")
        await asyncio.sleep(0.2)
        return f"read {RUNS['flaky_read']}"

    @server.tool()
    async def flaky_write(ctx: Context) -> str:
        """Writes; every answer is lost (the POST wrapper ends the stream before it)."""
        RUNS["flaky_write"] = RUNS.get("flaky_write", 0) + 1
        await ctx.report_progress(1, 2, "working")
        await asyncio.sleep(0.2)
        return "written"

    @server.tool()
    def trace_id() -> str:
        """The trace id of the current span (parented by the request's _meta.traceparent)."""
        from opentelemetry import trace
        return format(trace.get_current_span().get_span_context().trace_id, "032x")

    @server.tool()
    def regional(
        region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})],
        count: Annotated[int, Field(json_schema_extra={"x-mcp-header": "Count"})],
    ) -> str:
        """Echoes arguments that also travel as Mcp-Param headers."""
        return f"{region} {count}"

    @server.tool()
    async def publish(kind: str, ctx: Context, uri: str = "") -> str:
        """Publishes a change to the subscriptions/listen streams."""
        if kind == "tools":
            await ctx.notify_tools_changed()
        elif kind == "prompts":
            await ctx.notify_prompts_changed()
        elif kind == "resources":
            await ctx.notify_resources_changed()
        else:
            await ctx.notify_resource_updated(uri)
        return "published"

    @server.resource("res://greeting")
    def greeting() -> str:
        return "hello"

    @server.prompt()
    def greet(name: str) -> str:
        """Greets someone."""
        return f"Say hello to {name}."

    return server


class PostCounter:
    """ASGI wrapper: counts POSTed JSON-RPC messages and serves the counts at GET /posts."""

    def __init__(self, app):
        self.app = app
        self.counts = {}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if scope["method"] == "GET" and scope["path"] == "/replays":
            body = json.dumps(STORE.replayed_progress if STORE else []).encode()
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": body})
            return
        if scope["method"] == "GET" and scope["path"] in ("/posts", "/cancelled", "/runs"):
            if scope["path"] == "/cancelled" and scope.get("query_string"):
                await wait_for_cancellation(int(scope["query_string"].decode().partition("=")[2] or 0))
            served = {"/posts": self.counts, "/cancelled": CANCELLED, "/runs": RUNS}[scope["path"]]
            body = json.dumps(served).encode()
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": body})
            return
        if scope["method"] != "POST":
            return await self.app(scope, receive, send)
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        try:
            decoded = json.loads(body)
            key = f"{decoded.get('method', 'response')} {decoded.get('id', '-')}"
        except (ValueError, AttributeError):
            key = "invalid"
        self.counts[key] = self.counts.get(key, 0) + 1
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        if self.cuts(decoded if key != "invalid" else {}):
            send = self.cutting(send)
        return await self.app(scope, replay, send)

    def cuts(self, message):
        """Whether this POST's answer is lost: the first flaky_read call, every flaky_write."""
        if not isinstance(message, dict) or message.get("method") != "tools/call":
            return False
        name = (message.get("params") or {}).get("name")
        if name == "flaky_read":
            self.flaky_reads = getattr(self, "flaky_reads", 0) + 1
            return self.flaky_reads == 1
        return name == "flaky_write"

    @staticmethod
    def cutting(send):
        """`send` that ends the response after its first body chunk (an SSE event): the
        stream ends cleanly, without the answer the tool still produces."""
        state = {"ended": False}

        async def cut_send(message):
            if state["ended"]:
                return
            if message["type"] == "http.response.body" and message.get("body"):
                await send({"type": "http.response.body", "body": message["body"], "more_body": True})
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                state["ended"] = True
                return
            await send(message)

        return cut_send


def add_options(parser):
    parser.add_argument("--json-response", action="store_true")
    parser.add_argument("--stateless", action="store_true")
    parser.add_argument("--event-store", action="store_true")
    parser.add_argument("--retry-ms", type=int, default=None)
    parser.add_argument("--legacy-sse", action="store_true")


async def main():
    args = peer_common.parse_args(__doc__.splitlines()[0], extra=add_options)
    sock = peer_common.bind_socket(args.host)
    global STORE
    STORE = MemoryEventStore() if args.event_store else None
    watch_live_streams()
    server = build_server()
    if args.legacy_sse:
        app = server.sse_app()
    else:
        app = server.streamable_http_app(
            json_response=args.json_response,
            stateless_http=args.stateless,
            event_store=STORE,
            retry_interval=args.retry_ms,
        )
    config = uvicorn.Config(
        PostCounter(app),
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=1,
    )
    web = uvicorn.Server(config)
    web_task = asyncio.create_task(web.serve(sockets=[sock]))
    while not web.started:
        if web_task.done():
            await web_task
            sys.exit("uvicorn failed to start")
        await asyncio.sleep(0.01)
    peer_common.announce(sock)
    stopper = asyncio.create_task(peer_common.wait_for_stop(args))
    await asyncio.wait({web_task, stopper}, return_when=asyncio.FIRST_COMPLETED)
    web.should_exit = True
    await web_task
    stopper.cancel()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)

"""OpenAI Realtime API peer: a WebSocket server speaking the Realtime event protocol, every
event it sends and every event it receives checked against the `openai` SDK's own models
(`openai.types.realtime`, or `openai.types.beta.realtime` for the beta interface).

Path /v1/realtime (any query; any other path answers HTTP 404). The upgrade request needs
`Authorization: Bearer <token>` (HTTP 401 otherwise). `OpenAI-Beta: realtime=v1` selects the
beta interface and its event names (`response.text.delta`, `response.audio.delta`,
`response.audio_transcript.delta`, `conversation.item.created`); without it the server speaks
the generally available names (`response.output_text.delta`, `response.output_audio.delta`,
`response.output_audio_transcript.delta`, `conversation.item.added`/`.done`).

The session:
  on connect           `session.created`.
  session.update       `session.updated` (the session as sent, with an id), or `error` when
                       the session sets `instructions` to "reject"; with `instructions`
                       "Shout." every later text reply is in capitals (so a client can tell
                       whether its first message reached a configured session).
  conversation.item.create
                       `conversation.item.added` + `.done` (beta: `.created`); the item is
                       the conversation's latest.
  input_audio_buffer.append / .commit
                       the decoded bytes are counted; the commit answers
                       `input_audio_buffer.committed` and adds a user message
                       "heard <n> bytes, sum <s>" (the bytes' sum modulo 65536).
  response.create      a response to the latest item, by the text of the latest user message:
                         "audio: <words>"  an audio reply: 3 audio deltas (PCM16 bytes
                                           i % 256, 4,800 bytes each, in base64) and the
                                           transcript "<words>" in 4-character deltas;
                         "weather"         a function call get_weather {"city":"Paris"} whose
                                           arguments come in 3 deltas;
                         "fail"            `response.done` with status failed
                                           (server_error / internal_error);
                         "long <n>"        n text deltas "w0 ", "w1 ", …;
                         anything else     the text "You said: <text>" in 4-character deltas;
                       a function_call_output item as the latest: the text "It is sunny in
                       <city>." Each response is `response.created`, `rate_limits.updated`,
                       the output item and its content part, the deltas, the `.done` events
                       and `response.done` with the usage (input 10 + 1 per turn, 2 cached).
  response.cancel      `error` (no response is active: the responses here end at once).
Any client event the SDK's models reject is answered with an `error` event
(`invalid_request_error`, code `invalid_event`) and the session goes on, as the API does.
"""

import asyncio
import base64
import json
from urllib.parse import urlsplit

from pydantic import TypeAdapter, ValidationError
from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Response

from openai.types.realtime.realtime_client_event import RealtimeClientEvent as GAClientEvent
from openai.types.realtime.realtime_server_event import RealtimeServerEvent as GAServerEvent
from openai.types.beta.realtime.realtime_client_event import RealtimeClientEvent as BetaClientEvent
from openai.types.beta.realtime.realtime_server_event import RealtimeServerEvent as BetaServerEvent

import peer_common

ADAPTERS = {
    False: (TypeAdapter(GAClientEvent), TypeAdapter(GAServerEvent)),
    True: (TypeAdapter(BetaClientEvent), TypeAdapter(BetaServerEvent)),
}
AUDIO_CHUNK = 4800


def process_request(connection, request):
    if urlsplit(request.path).path != "/v1/realtime":
        return Response(404, "Not Found", Headers([("Content-Type", "text/plain")]), b"no such path\n")
    authorization = request.headers.get("Authorization", "")
    if not authorization.startswith("Bearer ") or len(authorization) <= len("Bearer "):
        body = json.dumps({"error": {"type": "invalid_request_error", "code": "invalid_api_key",
                                     "message": "Missing bearer token."}}).encode()
        return Response(401, "Unauthorized", Headers([("Content-Type", "application/json")]), body)
    return None


class Session:
    def __init__(self, ws):
        self.ws = ws
        self.beta = ws.request.headers.get("OpenAI-Beta", "") == "realtime=v1"
        self.client_events, self.server_events = ADAPTERS[self.beta]
        self.counter = 0
        self.latest = None
        self.audio = bytearray()
        self.turns = 0
        self.session = {}

    def next_id(self, prefix):
        self.counter += 1
        return f"{prefix}_{self.counter:04d}"

    async def send(self, event):
        event.setdefault("event_id", self.next_id("event"))
        self.server_events.validate_python(event)  # the SDK's model accepts what we send
        await self.ws.send(json.dumps(event))

    async def error(self, code, message, kind="invalid_request_error"):
        await self.send({"type": "error", "error": {"type": kind, "code": code, "message": message}})

    async def run(self):
        session = {"id": self.next_id("sess"), "object": "realtime.session", "model": "gpt-realtime"}
        if not self.beta:
            session["type"] = "realtime"
        await self.send({"type": "session.created", "session": session})
        async for raw in self.ws:
            try:
                event = json.loads(raw)
                self.client_events.validate_python(event)
            except (ValueError, ValidationError):
                await self.error("invalid_event", "The client event is not a valid Realtime client event.")
                continue
            await self.handle(event, session)

    async def handle(self, event, session):
        kind = event["type"]
        if kind == "session.update":
            if event["session"].get("instructions") == "reject":
                await self.error("invalid_value", "The session configuration was rejected.")
                return
            session.update(event["session"])
            self.session = session
            await self.send({"type": "session.updated", "session": session})
        elif kind == "conversation.item.create":
            await self.add_item(dict(event["item"]))
        elif kind == "input_audio_buffer.append":
            self.audio += base64.b64decode(event["audio"], validate=True)
        elif kind == "input_audio_buffer.commit":
            item_id = self.next_id("item")
            await self.send({"type": "input_audio_buffer.committed", "item_id": item_id, "previous_item_id": None})
            heard = f"heard {len(self.audio)} bytes, sum {sum(self.audio) % 65536}"
            self.audio = bytearray()
            await self.add_item({"id": item_id, "type": "message", "role": "user",
                                 "content": [{"type": "input_text", "text": heard}]})
        elif kind == "response.create":
            await self.respond()
        elif kind == "response.cancel":
            await self.error("response_cancel_not_active", "There is no active response to cancel.")

    async def add_item(self, item):
        item.setdefault("id", self.next_id("item"))
        item.setdefault("status", "completed")
        self.latest = item
        if self.beta:
            await self.send({"type": "conversation.item.created", "previous_item_id": None, "item": item})
        else:
            await self.send({"type": "conversation.item.added", "previous_item_id": None, "item": item})
            await self.send({"type": "conversation.item.done", "previous_item_id": None, "item": item})

    def request_text(self):
        item = self.latest or {}
        if item.get("type") == "function_call_output":
            city = json.loads(item.get("output") or "{}").get("city", "Paris")
            return None, f"It is sunny in {city}."
        parts = [p.get("text", "") for p in item.get("content", []) if p.get("type") == "input_text"]
        return " ".join(parts), None

    async def respond(self):
        self.turns += 1
        response_id = self.next_id("resp")
        request, answer = self.request_text()
        base = {"id": response_id, "object": "realtime.response", "output": []}
        await self.send({"type": "response.created", "response": dict(base, status="in_progress")})
        await self.send({"type": "rate_limits.updated", "rate_limits": [
            {"name": "tokens", "limit": 40000, "remaining": 39000, "reset_seconds": 1.5}]})
        if answer is None and request.startswith("audio: "):
            await self.audio_reply(response_id, request[len("audio: "):])
        elif answer is None and request == "weather":
            await self.call_reply(response_id)
        elif answer is None and request == "fail":
            error = {"type": "server_error", "code": "internal_error", "message": "The model failed."}
            await self.done(dict(base, status="failed", status_details={"type": "failed", "error": error}))
            return
        elif answer is None and request.startswith("long "):
            words = [f"w{i} " for i in range(int(request[len("long "):]))]
            await self.text_reply(response_id, words)
        else:
            text = answer if answer is not None else f"You said: {request}"
            await self.text_reply(response_id, [text[i:i + 4] for i in range(0, len(text), 4)])
        await self.done(dict(base, status="completed"))

    def names(self):
        if self.beta:
            return {"text": "response.text", "audio": "response.audio", "transcript": "response.audio_transcript",
                    "text_part": "text", "audio_part": "audio"}
        return {"text": "response.output_text", "audio": "response.output_audio",
                "transcript": "response.output_audio_transcript", "text_part": "output_text",
                "audio_part": "output_audio"}

    async def message_item(self, response_id, part_type):
        item_id = self.next_id("item")
        item = {"id": item_id, "object": "realtime.item", "type": "message", "status": "in_progress",
                "role": "assistant", "content": []}
        where = {"response_id": response_id, "item_id": item_id, "output_index": 0, "content_index": 0}
        await self.send({"type": "response.output_item.added", "response_id": response_id, "output_index": 0,
                         "item": item})
        # Content part events say "text"/"audio" in both interfaces; the item's content says
        # "output_text"/"output_audio" in the generally available one.
        part = {"type": "text", "text": ""} if part_type in ("text", "output_text") else {"type": "audio", "transcript": ""}
        await self.send(dict(where, type="response.content_part.added", part=part))
        return item, where

    async def end_item(self, response_id, item, where, part):
        short = "text" if part["type"] in ("text", "output_text") else "audio"
        await self.send(dict(where, type="response.content_part.done", part=dict(part, type=short)))
        item = dict(item, status="completed", content=[part])
        await self.send({"type": "response.output_item.done", "response_id": response_id, "output_index": 0,
                         "item": item})

    async def text_reply(self, response_id, pieces):
        if self.session.get("instructions") == "Shout.":
            pieces = [piece.upper() for piece in pieces]
        names = self.names()
        item, where = await self.message_item(response_id, names["text_part"])
        for piece in pieces:
            await self.send(dict(where, type=names["text"] + ".delta", delta=piece))
        text = "".join(pieces)
        await self.send(dict(where, type=names["text"] + ".done", text=text))
        await self.end_item(response_id, item, where, {"type": names["text_part"], "text": text})

    async def audio_reply(self, response_id, words):
        names = self.names()
        item, where = await self.message_item(response_id, names["audio_part"])
        pcm = bytes(i % 256 for i in range(3 * AUDIO_CHUNK))
        pieces = [words[i:i + 4] for i in range(0, len(words), 4)]
        for n in range(3):
            chunk = pcm[n * AUDIO_CHUNK:(n + 1) * AUDIO_CHUNK]
            await self.send(dict(where, type=names["audio"] + ".delta", delta=base64.b64encode(chunk).decode()))
        for piece in pieces:
            await self.send(dict(where, type=names["transcript"] + ".delta", delta=piece))
        await self.send(dict(where, type=names["audio"] + ".done"))
        await self.send(dict(where, type=names["transcript"] + ".done", transcript=words))
        await self.end_item(response_id, item, where, {"type": names["audio_part"], "transcript": words})

    async def call_reply(self, response_id):
        item_id = self.next_id("item")
        call = {"id": item_id, "object": "realtime.item", "type": "function_call", "status": "in_progress",
                "call_id": "call_" + item_id, "name": "get_weather", "arguments": ""}
        await self.send({"type": "response.output_item.added", "response_id": response_id, "output_index": 0,
                         "item": call})
        arguments = '{"city":"Paris"}'
        where = {"response_id": response_id, "item_id": item_id, "output_index": 0, "call_id": call["call_id"]}
        for piece in (arguments[:5], arguments[5:11], arguments[11:]):
            await self.send(dict(where, type="response.function_call_arguments.delta", delta=piece))
        done = dict(where, type="response.function_call_arguments.done", arguments=arguments)
        if not self.beta:
            done["name"] = "get_weather"
        await self.send(done)
        await self.send({"type": "response.output_item.done", "response_id": response_id, "output_index": 0,
                         "item": dict(call, status="completed", arguments=arguments)})

    async def done(self, response):
        usage = {"total_tokens": 10 + self.turns + 7, "input_tokens": 10 + self.turns, "output_tokens": 7,
                 "input_token_details": {"cached_tokens": 2, "text_tokens": 10 + self.turns, "audio_tokens": 0},
                 "output_token_details": {"text_tokens": 7, "audio_tokens": 0}}
        await self.send({"type": "response.done", "response": dict(response, usage=usage)})


async def handler(ws):
    try:
        await Session(ws).run()
    except ConnectionClosed:
        pass


async def main():
    args = peer_common.parse_args(__doc__.splitlines()[0])
    sock = peer_common.bind_socket(args.host)
    async with serve(handler, sock=sock, process_request=process_request, ssl=peer_common.ssl_context(args)):
        peer_common.announce(sock)
        await peer_common.wait_for_stop(args)


if __name__ == "__main__":
    asyncio.run(main())

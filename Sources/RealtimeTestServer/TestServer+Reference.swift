extension TestServer {
    /// The built-in endpoints and their query parameters (also served as text at `/help`).
    ///
    /// | endpoint | parameter | meaning (default) |
    /// |---|---|---|
    /// | `/sse` | `count=N` | number of events (10) |
    /// | | `start=K` | id of the first event (1); ids are K, K+1, … |
    /// | | `Last-Event-ID` header | resume: send only ids after it |
    /// | | `interval_ms=N` | pause between events (0: one burst) |
    /// | | `retry=N` | send `retry: N` first |
    /// | | `event=NAME` | add `event: NAME` to every event |
    /// | | `size=N` | pad each event's data to N bytes with `x` |
    /// | | `utf8=1` | append 2/3/4-byte code points to the data (`SSEStreamOptions.utf8Suffix`) |
    /// | | `invalid_utf8=1` | append invalid UTF-8 bytes to the data (`SSEStreamOptions.invalidUTF8Suffix`) |
    /// | | `newline=lf\|crlf\|cr` | line ending (lf) |
    /// | | `bom=1` | start the body with a UTF-8 BOM |
    /// | | `end=close\|hold\|204` | after the last event: end the body; keep the connection open; or end and answer 204 to a resume from the last id (close) |
    /// | | `ping_ms=N` | with `end=hold`: send a `:ping` comment every N ms |
    /// | | `framing=chunked\|close\|length` | body framing: chunked, close-delimited, Content-Length (chunked) |
    /// | | `cut=N` | drop the connection after N body bytes (a FIN; mid-chunk for chunked framing) |
    /// | | `reset=1` | drop with a TCP RST instead of a FIN |
    /// | | `cuts=N&seed=S` | cut schedule: the first N connections to this exact URL are each cut at a seeded random byte (spread over the stream), later ones run to the end (seed 1) |
    /// | | `stall=1` | send the headers, then nothing until the client leaves |
    /// | | `stall_after=N` | send N body bytes, then nothing |
    /// | | `drip=1` / `drip_ms=N` | write the body one byte per write (chunk), N ms apart (0) |
    /// | | `status=CODE` | answer CODE with a text body instead of the stream (e.g. 204, 301, 307, 401, 429, 500, 503) |
    /// | | `fail_attempts=N` | with `status`: only the first N connections to this URL get CODE, then the stream |
    /// | | `location=URL` | with `status`: a `Location` header (absent unless given; `location=` sends it empty) |
    /// | | `retry_after=V` | with `status`: a `Retry-After` header |
    /// | | `body=TEXT` | with `status`: the body (`status CODE`) |
    /// | | `content_type=T` | the stream's `Content-Type` (`text/event-stream`) |
    /// | | `endless=1` | `data: xxxx…` forever without a line end |
    /// | | `endless_bytes=N` | with `endless`: stop after N bytes and stall |
    /// | | `auth=TOKEN` | answer 401 (`WWW-Authenticate: Bearer`) unless the request has `Authorization: Bearer TOKEN` |
    /// | | `encoding=NAME` | `Content-Encoding: NAME`; `gzip` and `deflate` compress the body (flushed per write), any other name leaves it uncompressed |
    /// | | `before_head=close\|reset\|hold` | read the request, then close, reset, or send nothing, without a response |
    /// | | `long_header=N` | start a 200 head with a header line of N bytes, never finished |
    /// | `/redirect` | `n=N` | N redirects in a row, then one to `to` (1; a large N makes a redirect loop) |
    /// | | `to=TARGET` | the final `Location` (`/sse`) |
    /// | | `status=CODE` | the redirect status (302) |
    /// | `/bulk` | `bytes=N` | stream N bytes (rounded down to whole events) of a pre-generated buffer, as fast as the client reads (1 MiB) |
    /// | | `event_size=B` | bytes per event, `data: …\n\n` (128, minimum 9) |
    /// | | `framing=close\|chunked\|length` | body framing (close) |
    /// | `/ws` | `mode=echo` | echo text/binary messages, answer pings, echo the close (default) |
    /// | | `mode=send&count=N` | send N text messages `message 1`… (`interval_ms`), then close |
    /// | | `binary=1` | with `mode=send`: binary messages |
    /// | | `size=N` | with `mode=send`: pad each message to N bytes with `x` |
    /// | | `fragment=N` | with `mode=send`: send each message in fragments of N bytes |
    /// | | `ping_ms=N` | the server pings every N ms (payload `ping N`) |
    /// | | `ignore_pings=1` | never answer the client's pings |
    /// | | `heartbeat_ms=N&heartbeat=TEXT` | application-level heartbeat: send TEXT (`ping`) as a text message every N ms |
    /// | | `reply_to=IN&reply=OUT` | in echo mode, answer the text message IN with OUT (`pong`) instead of echoing it |
    /// | | `echo_delay_ms=N` | in echo mode, wait N ms before each echo (messages are handled in order, the client's close after them) |
    /// | | `close=CODE&reason=TEXT` | after the messages (or at once in `mode=close`), close with CODE and reason |
    /// | | `close_timeout_ms=N` | after the server's close, drop the connection if the client has not answered in N ms (5000) |
    /// | | `auth=TOKEN` | refuse the upgrade with 401 unless `Authorization: Bearer TOKEN` |
    /// | | `protocol=NAME` | select subprotocol NAME (even if the client did not offer it); `protocol=*` selects the first one offered; none by default |
    /// | | `refuse=STATUS` | answer the upgrade with STATUS and a text body |
    /// | | `bad_accept=1` | send a wrong `Sec-WebSocket-Accept` |
    /// | | `stall=1` | complete the upgrade, then send nothing (what the client sends is read and dropped) |
    /// | | `no_read=1` | complete the upgrade, then send nothing and read nothing: the client's writes stall once the kernel's buffers are full |
    /// | | `drop_mid_frame=1` | after the upgrade, send 10 bytes of a 100-byte text frame and drop the connection (`reset=1`: with a RST) |
    /// | | `cut=N` | drop the connection after N bytes of server frames, mid-frame if N falls there (`reset=1`: with a RST) |
    /// | | `drip_ms=N` | write every server frame one byte at a time, N ms apart |
    /// | | `violation=masked\|rsv\|utf8\|opcode\|control_size\|fragmented_control\|close_code` | first send one frame that breaks RFC 6455 (masked server frame; RSV2; invalid UTF-8 text; opcode 0x3; 126-byte ping; ping without FIN; close code 1005) |
    /// | `/llm/openai`, `/llm/anthropic`, `/llm/responses` (and `/v1/responses`), `/llm/gemini` | | a model's streamed reply (any method) in the OpenAI chat completions, Anthropic Messages, OpenAI Responses or Gemini `alt=sse` format (``LLMReplyOptions``) |
    /// | | `reply=text\|tools\|error` | text deltas with multi-byte code points, then finish and usage; a short text and two tool calls with fragmented arguments; three text deltas, then the format's in-stream error object (text) |
    /// | | `end=done\|hold\|truncate` | after the reply: the terminator (`data: [DONE]` / `message_stop`) and the end of the body; the terminator, then the connection held open; no finish and no terminator, the body just ends (done) |
    /// | | `count=N` | text deltas, cycling through `LLMReplyOptions.pieces` (10) |
    /// | | `interval_ms=N` | pause before each event after the first (0) |
    /// | | `split=1` | write each event in 3-byte chunks (code points and JSON cut across reads) |
    /// | | `echo=1` | the text is `You said: ` and the last message of the request's `messages` |
    /// | | `status=CODE` | answer CODE with the format's JSON error body (429 rate limit, 529 overloaded, else a server error) |
    /// | | `retry_after=V` | with `status`: a `Retry-After` header |
    /// | | `unknown=1` | after the first text delta, an event the format does not define (OpenAI `{"object":"keepalive"}`, Anthropic `content_block_summary`) |
    /// | | `invalid_utf8=1` | the text piece `llo` is sent with the byte 0xFF for its second `l` |
    /// | | `endless=1` | after the text, deltas of `piece_bytes=N` bytes (65536) until the client goes away (at most 256 MiB; no finish, no terminator) |
    /// | | `reasoning=1` | before the text, reasoning in the format's shape: `reasoning_content` chunks, a `thinking` block with its signature, a reasoning item with a summary, Gemini thought parts (and a `thoughtSignature` on the first text part) |
    /// | | `queued=1` | (Responses) `response.created` with status `queued` and `response.queued`, then nothing while the connection lasts (`queued_replay=end`: a replay ends cleanly instead) |
    /// | | `cut_after=N[,M…]` | (Responses) drop the connection mid-body after the event with `sequence_number` N; each request is cut at the first point after where it started (`-1`: before any event) |
    /// | `/v1/responses/{id}` | `stream=true&starting_after=N` | (GET) replay the Responses reply whose id the POST gave (its parameters are in the id), the events with `sequence_number` above N, cut at its first `cut_after` point above N; 404 for an unknown id |
    /// | `/help` | | this table as text |
    ///
    /// Every request is recorded in ``requests`` whatever the endpoint; routes given in
    /// ``Configuration/routes`` or ``setHandler(path:_:)`` take precedence.
    package static let endpointReference = """
        swift-realtime test server endpoints

        /sse   an SSE stream of events `id: K` / `data: event K`
          count=N (10)  start=K (1)  interval_ms=N (0)  retry=N  event=NAME  size=N
          utf8=1  invalid_utf8=1  newline=lf|crlf|cr  bom=1  end=close|hold|204  ping_ms=N
          framing=chunked|close|length (chunked)
          Last-Event-ID header: resume after that id
          faults: cut=N  reset=1  cuts=N&seed=S  stall=1  stall_after=N  drip=1  drip_ms=N
                  status=CODE [fail_attempts=N location=URL retry_after=V body=TEXT]
                  content_type=T  endless=1 [endless_bytes=N]  auth=TOKEN (401 without the bearer token)
                  encoding=gzip|deflate|NAME  before_head=close|reset|hold  long_header=N
        /redirect  n=N (1)  to=TARGET (/sse)  status=CODE (302): N redirects, then to TARGET
        /bulk  bytes=N (1 MiB)  event_size=B (128)  framing=close|chunked|length (close)
        /ws    mode=echo|send|close  count=N  interval_ms=N  binary=1  size=N  fragment=N
               ping_ms=N  ignore_pings=1  heartbeat_ms=N heartbeat=TEXT  reply_to=IN reply=OUT  echo_delay_ms=N
               close=CODE reason=TEXT  close_timeout_ms=N (5000)  protocol=NAME|*
               faults: auth=TOKEN  refuse=STATUS  bad_accept=1  stall=1  no_read=1  drop_mid_frame=1 [reset=1]  drip_ms=N
                       cut=N [reset=1]
                       violation=masked|rsv|utf8|opcode|control_size|fragmented_control|close_code
               no extensions are negotiated (no permessage-deflate)
        /llm/openai, /llm/anthropic, /llm/responses (= /v1/responses), /llm/gemini
               a model's streamed reply (OpenAI chat completions / Anthropic Messages / OpenAI Responses / Gemini)
               reply=text|tools|error  end=done|hold|truncate  count=N (10)  interval_ms=N  split=1  echo=1
               status=CODE [retry_after=V]: the format's JSON error body instead of a stream
               unknown=1 (an event the format does not define)  invalid_utf8=1  endless=1 [piece_bytes=N]
               reasoning=1 (reasoning before the text)
               Responses: queued=1 (stays queued)  cut_after=N[,M…] (drop after sequence_number N, then M…)
        /v1/responses/{id}?stream=true&starting_after=N  (GET) replay that Responses reply after event N
        /help  this text

        """
}

import RealtimeCore

/// `/llm/openai`, `/llm/anthropic`, `/llm/responses` (also `/v1/responses`) and
/// `/llm/gemini`: a model's streamed reply in the OpenAI chat completions, Anthropic
/// Messages, OpenAI Responses or Gemini format (see ``LLMReplyOptions`` and
/// ``TestServer/endpointReference``). Any method; the request body is read only for
/// `echo=1`. `GET /v1/responses/{id}` replays the Responses reply whose id it names.
enum LLMEndpoint {
    static func serve(_ writer: ResponseWriter, format: LLMReplyOptions.Format) throws {
        try serve(writer, options: LLMReplyOptions(format: format, query: writer.request.query), replay: false)
    }

    /// `GET /v1/responses/{id}?stream=true&starting_after=N`: the reply the id was made for
    /// (its query is in the id), from the event after N, cut at the reply's first `cut_after`
    /// point above N. 404 for an id this server did not make.
    static func serveResponse(_ writer: ResponseWriter, id: String) throws {
        guard var query = LLMReplyOptions.replyQuery(responseID: id) else {
            let body = #"{"error":{"message":"No response found with id '\#(id.prefix(64))'.","type":"invalid_request_error","param":null,"code":null}}"#
            return try BuiltinEndpoints.serveText(writer, status: 404, headers: ["Content-Type": "application/json"], body)
        }
        if let after = writer.request.query["starting_after"] { query["starting_after"] = after }
        try serve(writer, options: LLMReplyOptions(format: .responses, query: query), replay: true)
    }

    private static func serve(_ writer: ResponseWriter, options: LLMReplyOptions, replay: Bool) throws {
        if options.endless, options.status == nil {
            let renderer = LLMReplyRenderer(options: options, requestBody: writer.request.body)
            try writer.writeHead(
                status: 200, headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"], framing: .chunked)
            return try streamEndlessly(Array(renderer.events().prefix(renderer.startCount)), renderer, writer)
        }
        let reply = LLMReplyScript(options: options, requestBody: writer.request.body, replay: replay)
        guard reply.isEventStream else {
            let body = reply.events.flatMap { $0.flatMap { $0 } }
            try writer.writeHead(status: reply.status, headers: reply.headers, framing: .contentLength(body.count))
            return try writer.writeRaw(body)
        }
        try writer.writeHead(status: reply.status, headers: reply.headers, framing: .chunked)
        for (n, event) in reply.events.enumerated() {
            if n > 0, options.intervalMilliseconds > 0 { try writer.sleep(milliseconds: options.intervalMilliseconds) }
            for write in event { try writer.write(write) }
        }
        switch reply.end {
        case .close: return
        case .hold: try writer.hold()
        case .abort: writer.abort()  // dropped mid-body, as a network failure cuts a reply
        }
    }

    /// The start of the reply, then text deltas until a write fails (the client went away)
    /// or ``LLMReplyOptions/endlessLimit`` bytes were sent; no finish, no terminator.
    private static func streamEndlessly(_ start: [String], _ renderer: LLMReplyRenderer, _ writer: ResponseWriter) throws {
        for event in start { try writer.write(Array(event.utf8)) }
        let delta = Array(renderer.textDelta(renderer.options.endlessPiece).utf8)
        var sent = 0
        while sent < LLMReplyOptions.endlessLimit {
            try writer.write(delta)
            sent += delta.count
        }
    }
}

/// What the fake LLM endpoint answers for a reply's options, write by write: the head, each
/// event as the writes that carry it (3-byte pieces with `split=1`, cutting code points and
/// JSON tokens), then how the body ends. The test server plays it on a socket; a test on the
/// embedded stack plays it on an `EmbeddedSSEServer`. Not for `endless=1` replies.
package struct LLMReplyScript: Sendable {
    /// How the body ends once every event is written.
    package enum End: Sendable, Equatable {
        /// The body ends cleanly.
        case close
        /// The connection stays open (until the client closes it).
        case hold
        /// The connection is dropped mid-body.
        case abort
    }

    package let status: Int
    package let headers: HTTPHeaders
    /// The body: for an error status, its JSON error object as one write.
    package let events: [[[UInt8]]]
    package let end: End

    /// Whether the answer is an event stream (a 200), not an error status with a JSON body.
    package var isEventStream: Bool { status == 200 && headers["Content-Type"] == "text/event-stream" }

    package init(options: LLMReplyOptions, requestBody: [UInt8] = [], replay: Bool = false) {
        let renderer = LLMReplyRenderer(options: options, requestBody: requestBody)
        if let status = options.status {
            var headers: HTTPHeaders = ["Content-Type": "application/json"]
            if let retryAfter = options.retryAfter { headers.add(name: "Retry-After", value: retryAfter) }
            self.status = status
            self.headers = headers
            self.events = [[Array(renderer.errorBody(status: status).utf8)]]
            self.end = .close
            return
        }
        status = 200
        headers = ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"]
        // The event at position N has sequence_number N; a request is cut at the first point
        // after where it starts (the first request starts before -1).
        var events = renderer.events()
        let start = options.startingAfter ?? -2
        let cut = options.format == .responses ? options.cutAfter.first { $0 > start } : nil
        if options.format == .responses {
            if let after = options.startingAfter { events = Array(events.dropFirst(max(0, after + 1))) }
            if let cut { events = Array(events.prefix(max(0, cut - max(start, -1)))) }
        }
        self.events = Self.writes(events, options: options)
        if cut != nil {
            end = .abort
        } else if options.format == .responses, options.queued, replay, options.queuedReplayEnds {
            end = .close
        } else if (options.end == .hold && options.reply != .error) || (options.format == .responses && options.queued) {
            end = .hold
        } else {
            end = .close
        }
    }

    /// Each event as its writes: whole, or 3-byte pieces; with `invalid_utf8=1` the `llo` text
    /// delta carries a 0xFF byte.
    private static func writes(_ events: [String], options: LLMReplyOptions) -> [[[UInt8]]] {
        var events = events
        if options.invalidUTF8, let n = events.firstIndex(where: { $0.contains("\"llo\"") }) {
            events[n] = events[n].replacingOccurrences(of: "\"llo\"", with: "\"l\u{1}o\"")
        }
        return events.map { event in
            var bytes = Array(event.utf8)
            // The placeholder byte 0x01 is never in a rendered event (JSON escapes it).
            if options.invalidUTF8, let i = bytes.firstIndex(of: 0x01) { bytes[i] = 0xFF }
            guard options.split else { return [bytes] }
            return stride(from: 0, to: bytes.count, by: 3).map { Array(bytes[$0..<min(bytes.count, $0 + 3)]) }
        }
    }
}

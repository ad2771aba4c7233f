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
        let renderer = LLMReplyRenderer(options: options, requestBody: writer.request.body)
        if let status = options.status {
            var headers: HTTPHeaders = ["Content-Type": "application/json"]
            if let retryAfter = options.retryAfter { headers.add(name: "Retry-After", value: retryAfter) }
            let body = Array(renderer.errorBody(status: status).utf8)
            try writer.writeHead(status: status, headers: headers, framing: .contentLength(body.count))
            try writer.writeRaw(body)
            return
        }
        try writer.writeHead(
            status: 200, headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"], framing: .chunked)
        var events = renderer.events()
        if options.endless {
            try streamEndlessly(Array(events.prefix(renderer.startCount)), renderer, writer)
            return
        }
        // The event at position N has sequence_number N; a request is cut at the first point
        // after where it starts (the first request starts before -1).
        let start = options.startingAfter ?? -2
        let cut = options.format == .responses ? options.cutAfter.first { $0 > start } : nil
        if options.format == .responses {
            if let after = options.startingAfter { events = Array(events.dropFirst(max(0, after + 1))) }
            if let cut { events = Array(events.prefix(max(0, cut - max(start, -1)))) }
        }
        if options.invalidUTF8, let n = events.firstIndex(where: { $0.contains("\"llo\"") }) {
            events[n] = events[n].replacingOccurrences(of: "\"llo\"", with: "\"l\u{1}o\"")
        }
        for (n, event) in events.enumerated() {
            if n > 0, options.intervalMilliseconds > 0 { try writer.sleep(milliseconds: options.intervalMilliseconds) }
            var bytes = Array(event.utf8)
            // The placeholder byte 0x01 is never in a rendered event (JSON escapes it).
            if options.invalidUTF8, let i = bytes.firstIndex(of: 0x01) { bytes[i] = 0xFF }
            try write(bytes, split: options.split, writer)
        }
        if cut != nil {
            // Dropped mid-body, as a network failure cuts a reply, not a clean end.
            return writer.abort()
        }
        if options.format == .responses, options.queued, replay, options.queuedReplayEnds { return }
        if (options.end == .hold && options.reply != .error) || (options.format == .responses && options.queued) {
            try writer.hold()
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

    /// Writes an event whole, or in 3-byte chunks (cutting code points and JSON tokens).
    private static func write(_ bytes: [UInt8], split: Bool, _ writer: ResponseWriter) throws {
        guard split else { return try writer.write(bytes) }
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + 3)
            try writer.write(Array(bytes[offset..<end]))
            offset = end
        }
    }
}

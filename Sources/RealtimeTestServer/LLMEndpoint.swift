import RealtimeCore

/// `/llm/openai` and `/llm/anthropic`: a model's streamed reply in the OpenAI chat
/// completions or Anthropic Messages format (see ``LLMReplyOptions`` and
/// ``TestServer/endpointReference``). Any method; the request body is read only for `echo=1`.
enum LLMEndpoint {
    static func serve(_ writer: ResponseWriter, format: LLMReplyOptions.Format) throws {
        let options = LLMReplyOptions(format: format, query: writer.request.query)
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
        for (n, event) in renderer.events().enumerated() {
            if n > 0, options.intervalMilliseconds > 0 { try writer.sleep(milliseconds: options.intervalMilliseconds) }
            try write(Array(event.utf8), split: options.split, writer)
        }
        if options.end == .hold, options.reply != .error { try writer.hold() }
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

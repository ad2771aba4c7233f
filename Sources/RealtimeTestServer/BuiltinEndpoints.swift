import RealtimeCore

/// The endpoints every ``TestServer`` serves (see ``TestServer/endpointReference``).
enum BuiltinEndpoints {
    static func respond(_ writer: ResponseWriter, core: TestServerCore) throws {
        let request = writer.request
        switch request.path {
        case "/sse":
            try serveSSE(writer, options: SSEStreamOptions(query: request.query), core: core)
        case "/redirect":
            try serveRedirect(writer)
        case "/bulk":
            try serveBulk(writer, core: core)
        case "/ws":
            try WebSocketEndpoint.serve(writer, core: core)
        case "/llm/openai":
            try LLMEndpoint.serve(writer, format: .openAI)
        case "/llm/anthropic":
            try LLMEndpoint.serve(writer, format: .anthropic)
        case "/llm/responses", "/v1/responses":
            try LLMEndpoint.serve(writer, format: .responses)
        case "/llm/gemini":
            try LLMEndpoint.serve(writer, format: .gemini)
        case let path where path.hasPrefix("/v1/responses/"):
            try LLMEndpoint.serveResponse(writer, id: String(path.dropFirst("/v1/responses/".count)))
        case "/", "/help":
            try serveText(writer, status: 200, TestServer.endpointReference)
        default:
            try serveText(writer, status: 404, "no endpoint at \(request.path); see /help\n")
        }
    }

    static func serveText(_ writer: ResponseWriter, status: Int, headers: HTTPHeaders = [:], _ text: String) throws {
        let body = Array(text.utf8)
        var headers = headers
        if !headers.contains("Content-Type") { headers.add(name: "Content-Type", value: "text/plain; charset=utf-8") }
        try writer.writeHead(status: status, headers: headers, framing: status == 204 ? .none : .contentLength(body.count))
        if status != 204 { try writer.writeRaw(body) }
    }

    /// With a required token, answers 401 (and returns false) unless the request carries
    /// `Authorization: Bearer <token>`.
    static func authorize(_ writer: ResponseWriter, token: String?) throws -> Bool {
        guard let token, writer.request.headers["Authorization"] != "Bearer \(token)" else { return true }
        try serveText(writer, status: 401, headers: ["WWW-Authenticate": "Bearer"], "missing or wrong token\n")
        return false
    }

    // MARK: /redirect

    /// `n` redirects in a row (`status`, 302 by default), then one to `to` (`/sse`).
    static func serveRedirect(_ writer: ResponseWriter) throws {
        let query = writer.request.query
        let remaining = query["n"].flatMap { Int($0) } ?? 1
        let status = query["status"].flatMap { Int($0) } ?? 302
        let target = query["to"] ?? "/sse"
        let location =
            remaining > 1
            ? "/redirect?n=\(remaining - 1)&status=\(status)&to=\(percentEncode(target))"
            : target
        try serveText(writer, status: status, headers: ["Location": location], "redirecting\n")
    }

    static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }

    // MARK: /sse

    static func serveSSE(_ writer: ResponseWriter, options: SSEStreamOptions, core: TestServerCore) throws {
        let request = writer.request
        if try !authorize(writer, token: options.requiredToken) { return }
        if try serveHeadFault(writer, options: options) { return }
        let failing = options.failAttempts.map { request.attempt < $0 } ?? true
        if options.status != 200 && failing {
            var headers = HTTPHeaders()
            if let location = options.location { headers.add(name: "Location", value: location) }
            if let retryAfter = options.retryAfter { headers.add(name: "Retry-After", value: retryAfter) }
            try serveText(
                writer, status: options.status, headers: headers,
                options.errorBody ?? "status \(options.status)\n")
            return
        }
        if options.end == .noContent, let lastEventID = request.lastEventID, lastEventID >= options.lastID {
            try writer.writeHead(status: 204, framing: .none)
            return
        }

        var headers: HTTPHeaders = ["Content-Type": options.contentType, "Cache-Control": "no-cache"]
        if let encoding = options.encoding {
            headers.add(name: "Content-Encoding", value: encoding)
            writer.contentEncoder = ContentEncoder(name: encoding)
        }
        if options.endless {
            try writer.writeHead(status: 200, headers: headers, framing: .chunked)
            try writeEndlessLine(writer, limit: options.endlessBytes)
            return
        }

        // Rendered up front only when a length or a cut point needs it: a long paced
        // stream (count=1000000&interval_ms=…) starts at once.
        // Unpaced streams of moderate size are served from the cache too (one memcpy-speed
        // write loop instead of formatting every event again).
        let needsBody = options.framing == .length || options.cuts != nil || options.stallAfter != nil
        let cacheable = options.intervalMilliseconds == 0 && options.count <= 100_000
        let rendering = needsBody || cacheable ? core.sseRenderings.rendering(for: options) : nil
        let body = rendering?.body(options, resumingAfter: request.lastEventID) ?? []
        let framing: ResponseWriter.Framing =
            switch options.framing {
            case .chunked: .chunked
            case .close: .closeDelimited
            case .length: .contentLength(body.count)
            }
        writer.cutAfterBodyBytes = options.cut ?? options.scheduledCut(
            attempt: request.attempt, remainingBytes: body.count, totalBytes: rendering?.full.count ?? 0)
        writer.cutWithReset = options.reset
        writer.dripDelayMilliseconds = options.dripMilliseconds
        try writer.writeHead(status: 200, headers: headers, framing: framing)

        if options.stall { try writer.hold() }
        if let stallAfter = options.stallAfter {
            try writer.write(Array(body.prefix(stallAfter)))
            try writer.hold()
        }

        if rendering != nil && options.intervalMilliseconds == 0 {
            var offset = 0
            while offset < body.count {
                let end = min(body.count, offset + 64 * 1024)
                try writer.write(Array(body[offset..<end]))
                offset = end
            }
        } else {
            try writeEvents(writer, options: options)
        }
        if options.end == .hold {
            guard let ping = options.pingMilliseconds else { try writer.hold() }
            while true {
                try writer.sleep(milliseconds: ping)
                try writer.write(Array(":ping".utf8) + options.lineEnding.bytes)
            }
        }
    }

    /// `before_head` and `long_header`: faults before a complete response head. Returns true
    /// when one was served.
    private static func serveHeadFault(_ writer: ResponseWriter, options: SSEStreamOptions) throws -> Bool {
        if let length = options.longHeader {
            try writer.writeRaw(Array("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Long: ".utf8))
            let block = [UInt8](repeating: UInt8(ascii: "h"), count: 16 * 1024)
            var sent = 0
            while sent < length {
                let n = min(block.count, length - sent)
                try writer.writeRaw(n == block.count ? block : Array(block.prefix(n)))
                sent += n
            }
            try writer.hold()
        }
        switch options.beforeHead {
        case .close?:
            writer.abort(reset: false)
        case .reset?:
            writer.abort(reset: true)
        case .hold?:
            try writer.hold()
        case nil:
            return false
        }
        return true
    }

    /// Renders and writes the events as it goes: paced one by one, or in large batches.
    private static func writeEvents(_ writer: ResponseWriter, options: SSEStreamOptions) throws {
        try writer.write(options.preamble)
        if let ids = options.ids(resumingAfter: writer.request.lastEventID) {
            if options.intervalMilliseconds > 0 {
                for id in ids {
                    if id != ids.lowerBound { try writer.sleep(milliseconds: options.intervalMilliseconds) }
                    try writer.write(options.event(id: id))
                }
            } else {
                // No pacing: write in large batches rather than one tiny chunk per event.
                var batch: [UInt8] = []
                for id in ids {
                    batch += options.event(id: id)
                    if batch.count >= 64 * 1024 {
                        try writer.write(batch)
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                try writer.write(batch)
            }
        }
    }

    /// `data: xxxx…` with no line end, until the client gives up or `limit` bytes, then a stall.
    private static func writeEndlessLine(_ writer: ResponseWriter, limit: Int?) throws {
        try writer.write("data: ")
        let block = [UInt8](repeating: UInt8(ascii: "x"), count: 16 * 1024)
        var sent = 0
        while limit.map({ sent < $0 }) ?? true {
            let n = min(block.count, (limit ?? Int.max) - sent)
            try writer.write(n == block.count ? block : Array(block.prefix(n)))
            sent += n
        }
        try writer.hold()
    }

    // MARK: /bulk

    static func serveBulk(_ writer: ResponseWriter, core: TestServerCore) throws {
        let query = writer.request.query
        let eventSize = max(BulkBuffers.minimumEventSize, query["event_size"].flatMap { Int($0) } ?? 128)
        let requested = max(0, query["bytes"].flatMap { Int($0) } ?? 1 << 20)
        let total = requested / eventSize * eventSize
        let buffer = core.bulkCache.buffer(eventSize: eventSize)
        let framing: ResponseWriter.Framing =
            switch query["framing"] ?? "close" {
            case "chunked": .chunked
            case "length": .contentLength(total)
            default: .closeDelimited
            }
        try writer.writeHead(
            status: 200, headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"], framing: framing)
        var remaining = total
        while remaining > 0 {
            let n = min(remaining, buffer.count)
            let slice = n == buffer.count ? buffer : Array(buffer.prefix(n))
            if case .chunked = framing { try writer.write(slice) } else { try writer.writeRaw(slice) }
            remaining -= n
        }
    }
}

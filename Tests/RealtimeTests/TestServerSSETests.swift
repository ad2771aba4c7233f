import Foundation
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// The `/sse` and `/bulk` endpoints of the test server, checked byte by byte with a raw socket.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct TestServerSSETests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    private func fetch(_ target: String, headers: [String] = [], method: String = "GET", body: String? = nil)
        throws -> TestServerRawClient.Response
    {
        try TestServerRawClient.fetch(port: server.port, target, method: method, headers: headers, body: body)
    }

    @Test func streamsNumberedEventsAndRecordsTheRequest() throws {
        defer { server.stop() }
        let response = try fetch("/sse?count=3&event=tick", headers: ["Authorization: Bearer s3cret", "X-Trace: 7"])
        #expect(response.statusCode == 200)
        #expect(response.header("Content-Type") == "text/event-stream")
        #expect(response.chunkedComplete)
        let expected = "id: 1\nevent: tick\ndata: event 1\n\nid: 2\nevent: tick\ndata: event 2\n\nid: 3\nevent: tick\ndata: event 3\n\n"
        #expect(String(decoding: response.body, as: UTF8.self) == expected)
        #expect(response.end == .eof)

        let request = try #require(server.requests.last)
        #expect(request.method == "GET")
        #expect(request.path == "/sse")
        #expect(request.rawQuery == "count=3&event=tick")
        #expect(request.query == ["count": "3", "event": "tick"])
        #expect(request.headers["authorization"] == "Bearer s3cret")
        #expect(request.headers["X-Trace"] == "7")
        #expect(request.attempt == 0)
        #expect(!request.isTLS)
    }

    @Test func resumesAfterLastEventID() throws {
        defer { server.stop() }
        let response = try fetch("/sse?count=10&start=1", headers: ["Last-Event-ID: 7"])
        let options = SSEStreamOptions(query: ["count": "10"])
        #expect(response.body == options.body(resumingAfter: 7))
        #expect(String(decoding: response.body, as: UTF8.self).hasPrefix("id: 8\n"))
        #expect(server.requests.last?.lastEventID == 7)
        #expect(server.requests.last?.attempt == 0)

        // A resume at the last id with end=204 is told not to reconnect.
        let done = try fetch("/sse?count=10&end=204", headers: ["Last-Event-ID: 10"])
        #expect(done.statusCode == 204)
        #expect(done.rawBody.isEmpty)
    }

    @Test func recordsPostBodies() throws {
        defer { server.stop() }
        let json = #"{"prompt":"héllo","stream":true}"#
        let response = try fetch("/sse?count=1", method: "POST", body: json)
        #expect(response.statusCode == 200)
        let request = try #require(server.requests.last)
        #expect(request.method == "POST")
        #expect(request.bodyText == json)

        // A chunked request body is de-chunked.
        let client = try TestServerRawClient(port: server.port)
        client.send("POST /sse?count=1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n3\r\nefg\r\n0\r\n\r\n")
        #expect(client.readToEnd().statusCode == 200)
        #expect(server.requests.last?.bodyText == "abcdefg")

        // `Expect: 100-continue` gets its interim answer before the body is sent.
        let asking = try TestServerRawClient(port: server.port)
        asking.send("POST /sse?count=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        let interim = asking.read(for: 200)
        #expect(String(decoding: interim.bytes, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
        asking.send("hello")
        #expect(String(decoding: asking.readToEnd().bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK"))
        #expect(server.requests.last?.bodyText == "hello")
    }

    @Test(arguments: ["chunked", "close", "length"])
    func cutsAfterExactlyNBodyBytes(framing: String) throws {
        defer { server.stop() }
        let full = SSEStreamOptions(query: ["count": "5"]).body(resumingAfter: nil)
        let response = try fetch("/sse?count=5&cut=25&framing=\(framing)")
        #expect(response.body == Array(full.prefix(25)))
        #expect(response.end == .eof)
        #expect(!response.chunkedComplete)
        if framing == "length" { #expect(response.header("Content-Length") == String(full.count)) }
        #expect(server.statistics.cuts == 1)
    }

    @Test func cutsMidCodePoint() throws {
        defer { server.stop() }
        let options = SSEStreamOptions(query: ["count": "2", "utf8": "1"])
        let full = options.body(resumingAfter: nil)
        // The first byte of U+1F600 (F0 9F 98 80) plus two of its continuation bytes.
        let emoji = try #require((0..<full.count).first { full[$0] == 0xF0 })
        let response = try fetch("/sse?count=2&utf8=1&cut=\(emoji + 3)&framing=close")
        #expect(response.body == Array(full.prefix(emoji + 3)))
        #expect(response.body.suffix(3) == [0xF0, 0x9F, 0x98])
    }

    @Test func resetCutSendsRST() throws {
        defer { server.stop() }
        let response = try fetch("/sse?count=50&cut=100&reset=1&framing=close")
        #expect(response.end == .reset)
        #expect(response.body.count <= 100)
    }

    @Test func stallsAfterHeadersUntilStopped() throws {
        let client = try TestServerRawClient(port: server.port)
        client.request("/sse?stall=1")
        let first = client.read(for: 300)
        #expect(first.end == nil)
        let text = String(decoding: first.bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.hasSuffix("\r\n\r\n"))  // the head and not one body byte
        #expect(server.statistics.activeConnections == 1)

        let started = DispatchTime.now()
        server.stop()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        // A stalled handler not woken by the shutdown would hold stop() for its 10 s join timeout.
        #expect(elapsed < 5, "stop() wakes the stalled connection at once: \(elapsed) s")
        let rest = client.readToEnd()
        #expect(rest.end != .timeout)
        #expect(server.statistics.activeConnections == 0)
    }

    @Test func stallAfterSendsExactlyNBytes() throws {
        defer { server.stop() }
        let client = try TestServerRawClient(port: server.port)
        client.request("/sse?count=5&stall_after=12&framing=close")
        let received = client.read(for: 300)
        #expect(received.end == nil)
        let body = TestServerRawClient.Response(bytes: received.bytes, end: .eof).body
        #expect(body == Array(SSEStreamOptions(query: [:]).body(resumingAfter: nil).prefix(12)))
    }

    @Test func dripsOneBytePerChunk() throws {
        defer { server.stop() }
        let response = try fetch("/sse?count=1&drip=1")
        let expected = SSEStreamOptions(query: ["count": "1"]).body(resumingAfter: nil)
        #expect(response.body == expected)
        #expect(response.chunkSizes == Array(repeating: 1, count: expected.count))
    }

    @Test(arguments: [204, 301, 307, 401, 429, 500, 503])
    func answersAStatus(code: Int) throws {
        defer { server.stop() }
        let response = try fetch("/sse?status=\(code)&retry_after=3&body=nope")
        #expect(response.statusCode == code)
        #expect(response.header("Retry-After") == "3")
        #expect(response.header("Location") == nil)
        #expect(String(decoding: response.rawBody, as: UTF8.self) == (code == 204 ? "" : "nope"))
    }

    @Test func redirectsWithAndWithoutLocation() throws {
        defer { server.stop() }
        let with = try fetch("/sse?status=307&location=%2Fsse%3Fcount%3D1")
        #expect(with.header("Location") == "/sse?count=1")
        let empty = try fetch("/sse?status=301&location=")
        #expect(empty.head.contains("\r\nLocation: \r\n") || empty.head.contains("\r\nLocation:\r\n"))
        let none = try fetch("/sse?status=301")
        #expect(none.header("Location") == nil)
    }

    @Test func requiresABearerTokenWhenAsked() throws {
        defer { server.stop() }
        let missing = try fetch("/sse?count=1&auth=t0k")
        #expect(missing.statusCode == 401)
        #expect(missing.header("WWW-Authenticate") == "Bearer")
        #expect(try fetch("/sse?count=1&auth=t0k", headers: ["Authorization: Bearer wrong"]).statusCode == 401)
        #expect(try fetch("/sse?count=1&auth=t0k", headers: ["Authorization: Bearer t0k"]).statusCode == 200)
    }

    @Test func redirectsNTimesThenToTheTarget() throws {
        defer { server.stop() }
        var target = "/redirect?n=3&status=307&to=%2Fsse%3Fcount%3D1"
        var statuses: [Int] = []
        for _ in 0..<5 {
            let response = try fetch(target)
            statuses.append(response.statusCode ?? 0)
            guard let location = response.header("Location") else { break }
            target = location
        }
        #expect(statuses == [307, 307, 307, 200])
        #expect(target == "/sse?count=1")
    }

    @Test func failsOnlyTheFirstAttempts() throws {
        defer { server.stop() }
        let target = "/sse?status=503&fail_attempts=2&count=1"
        #expect(try fetch(target).statusCode == 503)
        #expect(try fetch(target).statusCode == 503)
        #expect(try fetch(target).statusCode == 200)
        #expect(server.requests.map(\.attempt) == [0, 1, 2])
    }

    @Test func wrongContentTypeAndInvalidUTF8() throws {
        defer { server.stop() }
        let plain = try fetch("/sse?count=1&content_type=text/plain")
        #expect(plain.header("Content-Type") == "text/plain")
        let invalid = try fetch("/sse?count=1&invalid_utf8=1")
        #expect(String(validating: invalid.body, as: UTF8.self) == nil)
        #expect(invalid.body.contains(0xFF))
    }

    @Test func lineEndingsBOMAndRetry() throws {
        defer { server.stop() }
        let response = try fetch("/sse?count=1&newline=crlf&bom=1&retry=1500")
        #expect(response.body == [0xEF, 0xBB, 0xBF] + Array("retry: 1500\r\n\r\nid: 1\r\ndata: event 1\r\n\r\n".utf8))
    }

    @Test func endlessLineNeverEnds() throws {
        defer { server.stop() }
        let client = try TestServerRawClient(port: server.port)
        client.request("/sse?endless=1&endless_bytes=100000")
        var bytes: [UInt8] = []
        var end: TestServerRawClient.End?
        for _ in 0..<20 {
            let part = client.read(for: 100)
            bytes += part.bytes
            end = part.end
            if end != nil || TestServerRawClient.Response(bytes: bytes, end: .eof).body.count >= 100_006 { break }
        }
        let body = TestServerRawClient.Response(bytes: bytes, end: .eof).body
        #expect(end == nil)  // still open: a stall after the limit
        #expect(body.count == 100_006)
        #expect(body.prefix(6) == Array("data: ".utf8)[...])
        #expect(!body.contains(10) && !body.contains(13))
    }

    @Test func holdsWithPingComments() throws {
        defer { server.stop() }
        let client = try TestServerRawClient(port: server.port)
        client.request("/sse?count=1&end=hold&ping_ms=20&framing=close")
        // Three pings, however slowly a loaded machine runs the server's thread (at most 5 s).
        var bytes: [UInt8] = []
        var body = ""
        for _ in 0..<50 {
            let part = client.read(for: 100)
            #expect(part.end == nil)
            bytes += part.bytes
            body = String(decoding: TestServerRawClient.Response(bytes: bytes, end: .eof).body, as: UTF8.self)
            if part.end != nil || body.components(separatedBy: ":ping\n").count > 3 { break }
        }
        #expect(body.hasPrefix("id: 1\ndata: event 1\n\n:ping\n"))
        #expect(body.components(separatedBy: ":ping\n").count > 3)
    }

    @Test func cutScheduleDeliversEveryIDExactlyOnce() throws {
        defer { server.stop() }
        let target = "/sse?count=10000&cuts=100&seed=42&utf8=1&end=204"
        var received: [Int] = []
        received.reserveCapacity(10_000)
        var lastID: Int?
        var connections = 0
        var endedMidCodePoint = 0
        while connections < 300 {
            connections += 1
            let response = try fetch(target, headers: lastID.map { ["Last-Event-ID: \($0)"] } ?? [])
            if response.statusCode == 204 { break }
            // Keep only complete events (a cut one ends without its blank line): scan for
            // "id: " at the start of each event and its terminating blank line.
            let body = response.body
            if let last = body.last, last & 0xC0 == 0x80 || last >= 0xC0 { endedMidCodePoint += 1 }
            var start = 0
            while let end = Self.blankLine(in: body, from: start) {
                if body[start..<min(body.count, start + 4)].elementsEqual("id: ".utf8) {
                    var id = 0
                    var i = start + 4
                    while i < body.count, body[i] >= 0x30, body[i] <= 0x39 {
                        id = id * 10 + Int(body[i] - 0x30)
                        i += 1
                    }
                    received.append(id)
                    lastID = id
                }
                start = end + 2
            }
        }
        #expect(received == Array(1...10_000))
        #expect(server.statistics.cuts == 100)
        // 100 cut connections, one that finished the stream, one that got 204.
        #expect(connections == 102)
        #expect(endedMidCodePoint > 0)
    }

    /// Index of the first "\n\n" at or after `from`.
    private static func blankLine(in bytes: [UInt8], from: Int) -> Int? {
        var i = from
        while i + 1 < bytes.count {
            if bytes[i] == 10 && bytes[i + 1] == 10 { return i }
            i += 1
        }
        return nil
    }

    @Test func bulkStreamsExactlyTheRequestedBytes() throws {
        defer { server.stop() }
        let response = try fetch("/bulk?bytes=1000050&event_size=100")
        #expect(response.body.count == 1_000_000)
        let event = Array(response.body.prefix(100))
        #expect(event.prefix(6) == Array("data: ".utf8)[...])
        #expect(event.suffix(2) == [10, 10])
        #expect(response.body.filter { $0 == 10 }.count == 20_000)
        let chunked = try fetch("/bulk?bytes=5000&event_size=50&framing=chunked")
        #expect(chunked.body.count == 5000)
        #expect(chunked.chunkedComplete)
    }
}

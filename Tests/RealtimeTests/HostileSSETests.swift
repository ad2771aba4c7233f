#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import Testing

/// Hostile SSE responses that need libcurl's HTTP parsing (chunk sizes, HTTP/1.0, interim
/// responses, content codings), byte for byte over a socket, through ``RealtimeClient``: what
/// the user sees (messages, error code, willRetry, the resume cursor, the number of requests).
/// Hostile bodies are on the embedded stack (`EmbeddedHostileSSETests`). The map of every
/// hostile case to its test is in `HostileInputMapTests.swift`.
@Suite(.timeLimit(.minutes(1)))
struct HostileSSETests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    static let eventStreamHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n"

    @Test("bad chunk sizes: the events before are delivered, nothing of the bad chunk, a retried protocol violation",
          arguments: ["zz", "-1", "FFFFFFFFFFFFFFFFFFFFFFFF", "", "8"])
    func badChunkSize(size: String) async throws {
        defer { server.stop() }
        server.setHandler(path: "/chunks") { writer in
            try writer.writeRawHead(Self.eventStreamHead + "Transfer-Encoding: chunked\r\n\r\n", framing: .none)
            // A good chunk (0xE = 14 bytes), then a bad size line (or, for "8", a size shorter
            // than the chunk that follows), then a chunk that must never be parsed.
            try writer.writeRaw(Array("E\r\ndata: first\n\n\r\n\(size)\r\ndata: never\n\n\r\n".utf8))
            try writer.hold()
        }
        let run = try await HostileRun.client(server.url("/chunks"), until: { $0.contains { $0.errorEvent != nil } }) { _ in }
        #expect(run.messages.map(\.text) == ["first"], "\(run.summary)")
        let error = try #require(run.errors.first, "\(run.summary)")
        #expect(error.error.code == .protocolViolation, "\(error.error)")
        #expect(error.error.detail?.hasPrefix("malformed chunked body: ") == true, "\(error.error)")
        #expect(error.willRetry)
        run.expectNoSecret()
    }

    @Test("HTTP/1.0 with a close-delimited body: events, a clean end, a resume with Last-Event-ID")
    func http10CloseDelimited() async throws {
        defer { server.stop() }
        server.setHandler(path: "/http10") { writer in
            if writer.request.headers["Last-Event-ID"] != nil {
                try writer.writeRawHead("HTTP/1.0 204 No Content\r\n\r\n", framing: .none)
                return
            }
            try writer.writeRawHead("HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n", framing: .closeDelimited)
            try writer.write("id: 1\ndata: one\n\nid: 2\ndata: two\n\n")
        }
        let run = try await HostileRun.client(server.url("/http10")) { $0.backoff = .constant(.milliseconds(100)) }
        #expect(run.opens.first?.httpVersion == "1.0")
        #expect(run.messages.map(\.text) == ["one", "two"])
        #expect(run.closes.first?.clean == true && run.closes.first?.willReconnect == true, "\(run.summary)")
        // The 204 answering the resume withdraws the reconnect the `closed` promised.
        #expect(run.errors.map(\.error.code) == [.streamEnded], "\(run.summary)")
        #expect(run.errors.first?.error.status == 204 && run.errors.first?.willRetry == false, "\(run.summary)")
        #expect(run.stoppedByItself, "\(run.summary)")
        #expect(server.requests(path: "/http10").map { $0.headers["Last-Event-ID"] } == [nil, "2"])
    }

    @Test("1xx interim responses before the 200 are skipped", arguments: ["GET", "POST"])
    func interimResponses(method: String) async throws {
        defer { server.stop() }
        server.setHandler(path: "/interim") { writer in
            try writer.writeRawHead(
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                    + Self.eventStreamHead + "Transfer-Encoding: chunked\r\n\r\n",
                framing: .chunked)
            try writer.write("data: after interim\n\n")
        }
        let run = try await HostileRun.client(server.url("/interim")) {
            $0.method = method
            $0.body = method == "POST" ? Array(HostileRun.body.utf8) : nil
            $0.reconnect = .finite
        }
        #expect(run.opens.first?.status == 200)
        #expect(run.messages.map(\.text) == ["after interim"], "\(run.summary)")
        #expect(run.errors.isEmpty && run.stoppedByItself, "\(run.summary)")
    }

    @Test("an unknown Content-Encoding stops at once: one request, never parsed as text")
    func unknownEncodingIsNotRetried() async throws {
        defer { server.stop() }
        let run = try await HostileRun.client(server.url("/sse?encoding=snappy")) { _ in }
        #expect(run.errors.map(\.error.code) == [.invalidContentEncoding], "\(run.summary)")
        #expect(run.errors.first?.willRetry == false)
        #expect(run.messages.isEmpty && run.stoppedByItself)
        #expect(server.requests(path: "/sse").count == 1)
    }
}
#endif

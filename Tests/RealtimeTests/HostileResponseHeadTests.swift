#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import Testing

/// Response heads a hostile server makes too long, or answers that are not HTTP at all, over
/// a socket through libcurl: the user sees the server's protocol violation, not a read
/// failure or a configuration error of their own.
@Suite(.timeLimit(.minutes(1)))
struct HostileResponseHeadTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    /// A head of short fields past libcurl's 300 KiB total, or one field past its 100 KiB line.
    struct Flood: Sendable, CustomTestStringConvertible {
        var name: String
        var fields: String
        var detail: String
        var testDescription: String { name }
    }

    static let floods = [
        Flood(
            name: "8000 fields of 50 bytes",
            fields: (0..<8_000).map { "X-Flood-\($0): \(String(repeating: "a", count: 40))\r\n" }.joined(),
            detail: "response head too large: "),
        Flood(name: "one field of 200 KB", fields: "X-Long: \(String(repeating: "a", count: 200_000))\r\n", detail: "response header line too long"),
    ]

    @Test("a head too large: protocol_violation naming the head, never a bare read failure; retried, never opened",
          arguments: floods)
    func aHeadTooLarge(_ flood: Flood) async throws {
        defer { server.stop() }
        server.setHandler(path: "/flood") { writer in
            try writer.writeRawHead("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n" + flood.fields, framing: .none)
            try writer.hold()
        }
        let run = try await HostileRun.client(server.url("/flood"), until: { $0.contains { $0.errorEvent != nil } }) { _ in }
        let error = try #require(run.errors.first, "\(run.summary)")
        #expect(error.error.code == .protocolViolation, "\(error.error)")
        #expect(error.error.detail?.hasPrefix(flood.detail) == true, "\(error.error)")
        #expect(error.willRetry, "a protocol violation is retried with backoff")
        #expect(run.opens.isEmpty, "\(run.summary)")
        run.expectNoSecret()
    }

    @Test("a server that does not speak HTTP/1.x (another protocol, another version, a status not of 3 digits): protocol_violation, never invalid_configuration",
          arguments: [
              "SSH-2.0-OpenSSH_9.2\r\n", "220 mail.example ESMTP\r\n", "\u{16}\u{03}\u{01}\u{00}\u{05}hello",
              "HTTP/1.2 200 OK\r\nContent-Type: text/event-stream\r\n\r\n", "HTTP/3 200 OK\r\nContent-Type: text/event-stream\r\n\r\n",
              "HTTP/1.1 99 Odd\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n",
          ])
    func notHTTP(_ greeting: String) async throws {
        defer { server.stop() }
        server.setHandler(path: "/nothttp") { writer in
            try writer.writeRawHead(greeting, framing: .none)
            try writer.hold()
        }
        let run = try await HostileRun.client(server.url("/nothttp"), until: { $0.contains { $0.errorEvent != nil } }) { _ in }
        let error = try #require(run.errors.first, "\(run.summary)")
        #expect(error.error.code == .protocolViolation, "\(error.error)")
        #expect(error.error.detail?.hasPrefix("malformed response: ") == true, "\(error.error)")
        #expect(error.willRetry, "the server's fault, retried with backoff like other protocol violations")
        #expect(run.opens.isEmpty, "\(run.summary)")
        run.expectNoSecret()
    }

    @Test("a gzip stream cut short by a clean end of the body (a server restarting): a clean end, a resume with Last-Event-ID",
          arguments: [false, true])
    func aGzipStreamCutByACleanEnd(chunked: Bool) async throws {
        defer { server.stop() }
        // "id: 1\ndata: one\n\n" deflated into a gzip member with a sync flush: no final block, no trailer.
        let gzip: [UInt8] = [
            0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xCA, 0x4C, 0xB1, 0x52, 0x30, 0xE4, 0x4A, 0x49, 0x2C, 0x49,
            0xB4, 0x52, 0xC8, 0xCF, 0x4B, 0xE5, 0xE2, 0x02, 0x00, 0x00, 0x00, 0xFF, 0xFF,
        ]
        server.setHandler(path: "/gzip") { writer in
            if writer.request.headers["Last-Event-ID"] == "1" {
                try writer.writeRawHead("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n", framing: .none)
                return
            }
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\nConnection: close\r\n"
            if chunked {
                try writer.writeRawHead(head + "Transfer-Encoding: chunked\r\n\r\n", framing: .none)
                try writer.writeRaw(Array("21\r\n".utf8) + gzip + Array("\r\n0\r\n\r\n".utf8))
            } else {
                try writer.writeRawHead(head + "Content-Length: \(gzip.count)\r\n\r\n", framing: .none)
                try writer.writeRaw(gzip)
            }
        }
        let run = try await HostileRun.client(server.url("/gzip")) { $0.backoff = .constant(.milliseconds(100)) }
        #expect(run.messages.map(\.text) == ["one"], "\(run.summary)")
        #expect(run.closes.first?.clean == true && run.closes.first?.willReconnect == true, "\(run.summary)")
        #expect(run.errors.map(\.error.code) == [.streamEnded], "the resume was answered 204: \(run.summary)")
        run.expectNoSecret()
    }
}
#endif

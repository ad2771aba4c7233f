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
}
#endif

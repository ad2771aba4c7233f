#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// A TLS stream that breaks after it opened: bytes that are not a TLS record arrive where
/// the client expects one (a corrupting middlebox, a confused server). The handshake was
/// accepted, so nothing was refused: the next attempt may succeed. Both transports retry it
/// with backoff, with the same code (Errors.md, "TLS failures": only a refusal stops).
@Suite(.timeLimit(.minutes(1)))
struct HostileTLSStreamTests {
    @Test("bytes that are not a TLS record after the stream opened: network, retried with backoff, on both transports",
          arguments: TransportFixture.kinds)
    func aCorruptRecordMidStream(kind: TransportKind) async throws {
        let ca = try await offloaded { try TestCertificates.shared() }
        let fixture = try TransportFixture(kind, tls: TestServer.Configuration.TLS(certificates: ca))
        defer { fixture.server.stop() }
        let garbage = Array("HTTP/1.1 400 Bad Request\r\n\r\nnot a TLS record at all".utf8)
        fixture.server.setHandler(path: "/corrupt") { writer in
            if kind == .sse {
                try writer.writeRawHead(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n", framing: .none)
                try writer.writeRaw(Array("data: one\n\n".utf8))
            } else {
                try writer.acceptWebSocket()
                try writer.writeRaw([0x81, 3] + Array("one".utf8))
            }
            try writer.writeBeneathTLS(garbage)
            try writer.hold()
        }
        let url = kind == .sse ? fixture.server.url("/corrupt") : fixture.server.wsURL("/corrupt")
        let run = try await HostileRun.client(url, until: { $0.compactMap(\.errorEvent).count >= 2 }) {
            $0.tls.trustRoots = .file(ca.caCertificateFile)
            $0.backoff = .constant(.milliseconds(100))
        }
        #expect(run.messages.first?.text == "one", "\(run.summary)")
        let first = try #require(run.errors.first, "\(run.summary)")
        #expect(first.error.code == .network, "\(first.error)")
        #expect(first.error.detail?.hasPrefix("TLS read failed: error:0A00010B:SSL routines::wrong version number") == true,
                "the same words on both transports: \(first.error)")
        #expect(first.willRetry, "a broken stream is not a refusal: \(run.summary)")
        #expect(run.errors.count >= 2, "\(run.summary)")
        run.expectNoSecret()
    }
}
#endif

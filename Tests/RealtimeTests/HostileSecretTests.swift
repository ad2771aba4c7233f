#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// Secrets across every error path: a client carrying a bearer token, a cookie, an API key,
/// a URL password (and, for SSE, a POST body) fails in each way a server or network can make
/// it fail, and neither its events (printed or reflected) nor its log records (at `trace`)
/// contain any of them. Each path first proves it took the path (the expected error code).
@Suite(.timeLimit(.minutes(1)))
struct HostileSecretTests {
    enum Path: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case refused, dnsFailure, unknownCA, unauthorized, unavailable, cutMidStream, idleTimeout, connectTimeout
        case redirectElsewhereThenFailure, redirectLoop
        // SSE only.
        case wrongContentType, unknownEncoding, postNotRepeated
        // WebSocket only.
        case protocolViolation, badAccept, serverClose

        var testDescription: String { rawValue }

        var kinds: [TransportKind] {
            switch self {
            case .wrongContentType, .unknownEncoding, .postNotRepeated: [.sse]
            case .protocolViolation, .badAccept, .serverClose: [.webSocket]
            default: TransportFixture.kinds
            }
        }

        /// The error code that shows the path was taken (per kind where the protocols differ).
        func code(_ kind: TransportKind) -> RealtimeError.Code {
            switch self {
            case .refused, .cutMidStream: .network
            case .dnsFailure: .dnsFailure
            case .unknownCA: .tls
            case .unauthorized: .unauthorized
            case .unavailable, .redirectElsewhereThenFailure: kind == .sse ? .httpStatus : .handshake
            case .idleTimeout: .idleTimeout
            case .connectTimeout: .connectTimeout
            case .redirectLoop: .redirect
            case .wrongContentType: .invalidContentType
            case .unknownEncoding: .invalidContentEncoding
            case .postNotRepeated: .requestNotRepeatable
            case .protocolViolation: .protocolViolation
            case .badAccept: .handshake
            case .serverClose: .remoteClosed
            }
        }
    }

    static let cases: [(TransportKind, Path)] = Path.allCases.flatMap { path in path.kinds.map { ($0, path) } }

    @Test("no secret in any event or log record", arguments: cases)
    func noSecretOnThePath(kind: TransportKind, path: Path) async throws {
        // Certificates are generated off the cooperative threads (openssl runs synchronously).
        let tls = path == .unknownCA ? try await offloaded { TestServer.Configuration.TLS(certificates: try TestCertificates.shared()) } : nil
        let fixture = try TransportFixture(kind, tls: tls)
        let other = TestServer()
        try other.start()
        let closedPort = try ClosedPort()
        defer {
            fixture.server.stop()
            other.stop()
            withExtendedLifetime(closedPort) {}
        }
        let url = Self.url(for: path, fixture, other: other, closedPort: closedPort.port)
        let run = try await HostileRun.client(url, until: { $0.contains { $0.errorEvent != nil } }) {
            $0.webSocket.heartbeat = .disabled
            switch path {
            case .idleTimeout: $0.idleTimeout = .milliseconds(200)
            case .connectTimeout: $0.connectTimeout = .milliseconds(200)
            case .postNotRepeated:
                $0.method = "POST"
                $0.body = Array(HostileRun.body.utf8)
            default: break
            }
        }
        let error = try #require(run.errors.first, "\(path) did not fail: \(run.summary)")
        #expect(error.error.code == path.code(kind), "\(error.error)")
        run.expectNoSecret()
        // The server did receive the credentials where it was meant to: the check above is
        // not passing because nothing was sent.
        if let first = fixture.server.requests.first, path != .unknownCA {
            #expect(first.headers["Authorization"] == HostileRun.bearer)
        }
    }

    static func url(for path: Path, _ fixture: TransportFixture, other: TestServer, closedPort: UInt16) -> URL {
        let server = fixture.server
        switch path {
        case .refused: return fixture.elsewhere(host: "127.0.0.1", port: closedPort)
        case .dnsFailure: return fixture.elsewhere(host: "no-such-host.invalid", port: 80)
        case .unknownCA: return fixture.finite(1)
        case .unauthorized: return fixture.authorized("another-token")
        case .unavailable: return fixture.refused(503)
        case .cutMidStream: return fixture.cutMidMessage(after: 1, reset: true)
        case .idleTimeout: return fixture.stalled
        case .connectTimeout: return fixture.silent
        case .redirectElsewhereThenFailure:
            let target = fixture.kind == .sse ? other.url("/sse?status=500") : other.wsURL("/ws?refuse=500")
            server.setHandler(path: "/away") { writer in
                try writer.writeHead(status: 307, headers: ["Location": target.absoluteString], framing: .contentLength(0))
            }
            return fixture.kind == .sse ? server.url("/away") : server.wsURL("/away")
        case .redirectLoop: return fixture.kind == .sse ? server.url("/redirect?n=50") : server.wsURL("/redirect?n=50")
        case .wrongContentType: return server.url("/sse?content_type=text/html")
        case .unknownEncoding: return server.url("/sse?encoding=snappy")
        case .postNotRepeated: return server.url("/sse?before_head=close")
        case .protocolViolation: return server.wsURL("/ws?violation=masked")
        case .badAccept: return server.wsURL("/ws?bad_accept=1")
        case .serverClose: return server.wsURL("/ws?mode=close&close=1011&reason=bye")
        }
    }
}
#endif

#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// TLS a client must refuse, on both transports through ``RealtimeClient`` with its default
/// reconnect policy: a `tls` error that says why, no retry, and exactly one connection at the
/// server over a two-second window (no retry storm), with no secret shown.
@Suite(.timeLimit(.minutes(1)))
struct HostileTLSTests {
    enum Refusal: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case selfSigned, wrongHost, expired, pinMismatch, unknownCA
        var testDescription: String { rawValue }

        /// What the error's detail says (the same words on both transports).
        var reason: String {
            switch self {
            case .selfSigned: "self-signed certificate"
            case .wrongHost: "IP address mismatch"
            case .expired: "certificate has expired"
            case .pinMismatch: "does not match any pinned key"
            // The test server sends its CA with its certificate: the chain ends in a root
            // the client does not trust.
            case .unknownCA: "self-signed certificate in certificate chain"
            }
        }

        func serverTLS(_ ca: TestCertificates) throws -> TestServer.Configuration.TLS {
            switch self {
            case .selfSigned: try TestCertificates.selfSignedServer()
            case .wrongHost: try ca.server("elsewhere", subjectAltName: "DNS:elsewhere.example")
            case .expired: try ca.server("expired", days: -1)
            case .pinMismatch, .unknownCA: TestServer.Configuration.TLS(certificates: ca)
            }
        }
    }

    static let window = Duration.seconds(2)

    @Test("refused certificates: tls with the reason, no retry, one connection in two seconds",
          arguments: TransportFixture.kinds, Refusal.allCases)
    func refused(kind: TransportKind, refusal: Refusal) async throws {
        let ca = try TestCertificates.shared()
        let fixture = try TransportFixture(kind, tls: try refusal.serverTLS(ca))
        defer { fixture.server.stop() }
        let run = try await HostileRun.client(fixture.finite(1), within: Self.window) {
            if refusal != .unknownCA { $0.tls.trustRoots = .file(ca.caCertificateFile) }
            if refusal == .pinMismatch { $0.tls.pinnedPublicKeys = [try! TestCertificates.shared("other").serverPublicKeyPin] }
        }
        if run.elapsed < Self.window { try await Task.sleep(for: Self.window - run.elapsed) }
        #expect(run.opens.isEmpty && run.messages.isEmpty, "\(run.summary)")
        let error = try #require(run.errors.first, "\(run.summary)")
        #expect(error.error.code == .tls, "\(error.error)")
        // The same words on both transports (SSE adds curl's number).
        #expect(error.error.detail?.hasPrefix("certificate verify failed: \(refusal.reason)") == true
            || error.error.detail?.hasPrefix("server public key \(refusal.reason)") == true, "\(error.error)")
        #expect(!error.willRetry && run.errors.count == 1 && run.stoppedByItself, "\(run.summary)")
        #expect(fixture.server.statistics.connectionsAccepted == 1, "attempts: \(fixture.server.statistics.connectionsAccepted)")
        #expect(fixture.server.requests.isEmpty, "a request went out over a refused connection")
        run.expectNoSecret()
    }
}
#endif

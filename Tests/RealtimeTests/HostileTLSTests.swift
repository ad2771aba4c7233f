#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// TLS a client must refuse, on both transports through ``RealtimeClient`` with its default
/// reconnect policy: a `tls` error that says why, no retry, and exactly one connection at the
/// server two seconds after the client stopped (no retry storm), with no secret shown.
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

    @Test("refused certificates: tls with the reason, no retry, one connection",
          arguments: TransportFixture.kinds, Refusal.allCases)
    func refused(kind: TransportKind, refusal: Refusal) async throws {
        // openssl runs synchronously: off the cooperative threads every other test needs.
        let (ca, serverTLS, otherPin) = try await offloaded {
            let ca = try TestCertificates.shared()
            return (ca, try refusal.serverTLS(ca), try TestCertificates.shared("other").serverPublicKeyPin)
        }
        let fixture = try TransportFixture(kind, tls: serverTLS)
        defer { fixture.server.stop() }
        let run = try await HostileRun.client(fixture.finite(1)) {
            if refusal != .unknownCA { $0.tls.trustRoots = .file(ca.caCertificateFile) }
            if refusal == .pinMismatch { $0.tls.pinnedPublicKeys = [otherPin] }
        }
        // The client stopped by itself: its stream ended, so no attempt can follow (the one
        // connection the server counts was accepted before the handshake failed).
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

    /// What the server does to the handshake, and what the client must make of it.
    enum HandshakeCase: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case reset, close, stall, protocolVersion, noSharedCipher, clientCertificateRequired
        var testDescription: String { rawValue }

        var serverTLS: TestServer.Configuration.TLS {
            get throws {
                let ca = try TestCertificates.shared()
                return switch self {
                case .reset: .init(certificates: ca, handshakeFault: .resetAfterClientHello)
                case .close: .init(certificates: ca, handshakeFault: .closeAfterClientHello)
                case .stall: .init(certificates: ca, handshakeFault: .stallAfterClientHello)
                case .protocolVersion: .init(certificates: ca, handshakeFault: .protocolVersion)
                case .noSharedCipher: .init(certificates: ca, handshakeFault: .noSharedCipher)
                case .clientCertificateRequired: .init(certificates: ca, requireClientCertificate: true)
                }
            }
        }

        /// The code, and whether the client tries again.
        var expected: (code: RealtimeError.Code, retried: Bool) {
            switch self {
            case .reset, .close: (.network, true)
            case .stall: (.connectTimeout, true)
            case .protocolVersion, .noSharedCipher, .clientCertificateRequired: (.tls, false)
            }
        }
    }

    /// A server that resets, closes or stalls during the handshake (an overloaded accept queue,
    /// a restart, a load balancer draining) refused nothing: the client tries again after a
    /// backoff delay, on both transports. A server that refuses the handshake is answered
    /// with one attempt and a stop.
    @Test("handshake faults: a vanished server is retried with backoff, a refusal stops",
          arguments: TransportFixture.kinds, HandshakeCase.allCases)
    func handshake(kind: TransportKind, handshake: HandshakeCase) async throws {
        let (ca, serverTLS) = try await offloaded { (try TestCertificates.shared(), try handshake.serverTLS) }
        let fixture = try TransportFixture(kind, tls: serverTLS)
        defer { fixture.server.stop() }
        let expected = handshake.expected
        let run = try await HostileRun.client(fixture.finite(1), until: { $0.compactMap(\.errorEvent).count >= 2 }) {
            $0.tls.trustRoots = .file(ca.caCertificateFile)
            if handshake == .stall { $0.connectTimeout = .milliseconds(300) }
        }
        #expect(run.opens.isEmpty && run.messages.isEmpty, "\(run.summary)")
        let first = try #require(run.errors.first, "\(run.summary)")
        #expect(first.error.code == expected.code, "\(first.error)")
        #expect(first.willRetry == expected.retried, "\(run.summary)")
        if expected.retried {
            #expect(run.errors.count >= 2 && run.errors[1].error.code == expected.code, "\(run.summary)")
            #expect((first.retryIn ?? .zero) > .zero, "a backoff delay, not at once: \(run.summary)")
            #expect(fixture.server.statistics.connectionsAccepted >= 2)
        } else {
            #expect(run.errors.count == 1 && run.stoppedByItself, "\(run.summary)")
            #expect(fixture.server.statistics.connectionsAccepted == 1)
        }
        run.expectNoSecret()
    }
}
#endif

import Foundation
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import RealtimeTestServer
import RealtimeWebSocket

/// `wss` against Python `websockets` and `aiohttp` serving a certificate from a test CA.
@Suite(.serialized, .timeLimit(.minutes(1))) struct WebSocketTLSTests {
    static let certificates: TestCertificates = {
        try! TestCertificates.shared()
    }()

    static func tls(_ configure: (inout TLSConfiguration) -> Void = { _ in }) -> TLSConfiguration {
        var tls = TLSConfiguration()
        tls.trustRoots = .file(certificates.caCertificateFile)
        configure(&tls)
        return tls
    }

    static func peer(_ script: String) async throws -> PythonPeer {
        try await PythonPeer.start(script: script, arguments: ["--tls-cert", certificates.serverCertificateFile, "--tls-key", certificates.serverKeyFile])
    }

    @Test(arguments: ["ws_websockets.py", "ws_aiohttp.py"]) func echoOverTLS(peer script: String) async throws {
        let peer = try await Self.peer(script)
        try await withDeadline {
            let probe = TransportProbe(peer.url("/echo", scheme: "wss")) { $0.tls = Self.tls() }
            #expect(await probe.opened() != nil)
            for i in 0..<20 {
                try await probe.transport.send(.text("message \(i)"))
            }
            let big = (0..<300_000).map { UInt8($0 % 256) }
            try await probe.transport.send(.binary(big))
            for i in 0..<20 {
                #expect(await probe.message()?.text == "message \(i)")
            }
            #expect(await probe.message()?.bytes == big)
            probe.transport.close()
            let (end, _) = await probe.ended()
            #expect(end?.clean == true)
        }
    }

    @Test func hostNameIsVerifiedForNamesAndAddresses() async throws {
        let peer = try await Self.peer("ws_websockets.py")
        try await withDeadline {
            // "localhost" and 127.0.0.1 are in the certificate's subjectAltName.
            for host in ["localhost", "127.0.0.1"] {
                let probe = TransportProbe(URL(string: "wss://\(host):\(peer.port)/echo")!) { $0.tls = Self.tls() }
                #expect(await probe.opened() != nil, "host \(host)")
                probe.transport.close()
                _ = await probe.ended()
            }
        }
    }

    @Test func wrongCAFailsWithTLSError() async throws {
        let peer = try await Self.peer("ws_websockets.py")
        try await withDeadline {
            // System roots do not include the test CA.
            let probe = TransportProbe(peer.url("/echo", scheme: "wss"))
            let (end, _) = await probe.ended()
            #expect(end?.error?.code == .tls)
            #expect(end?.error?.detail?.contains("certificate verify failed") == true, "\(String(describing: end?.error))")
        }
    }

    @Test func insecureModeAcceptsAnyCertificate() async throws {
        let peer = try await Self.peer("ws_websockets.py")
        try await withDeadline {
            let probe = TransportProbe(peer.url("/echo", scheme: "wss")) { $0.tls.verification = .insecureNoVerification }
            #expect(await probe.opened() != nil)
            probe.transport.close()
            _ = await probe.ended()
        }
    }

    @Test func pinnedKeyMatches() async throws {
        let peer = try await Self.peer("ws_websockets.py")
        try await withDeadline {
            let probe = TransportProbe(peer.url("/echo", scheme: "wss")) {
                $0.tls = Self.tls { $0.pinnedPublicKeys = ["sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", Self.certificates.serverPublicKeyPin] }
            }
            #expect(await probe.opened() != nil)
            probe.transport.close()
            _ = await probe.ended()
        }
    }

    @Test func pinnedKeyMismatchFails() async throws {
        let peer = try await Self.peer("ws_websockets.py")
        try await withDeadline {
            let probe = TransportProbe(peer.url("/echo", scheme: "wss")) {
                $0.tls = Self.tls { $0.pinnedPublicKeys = ["sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="] }
            }
            let (end, _) = await probe.ended()
            #expect(end?.error?.code == .tls)
            #expect(end?.error?.detail?.contains("pinned") == true)
        }
    }

    @Test func missingCAFileIsAConfigurationError() async throws {
        let peer = try await Self.peer("ws_websockets.py")
        try await withDeadline {
            let probe = TransportProbe(peer.url("/echo", scheme: "wss")) { $0.tls.trustRoots = .file("/nonexistent/ca.pem") }
            let (end, _) = await probe.ended()
            #expect(end?.error?.code == .invalidConfiguration)
            #expect(end?.error?.detail?.contains("CA file") == true)
        }
    }
}

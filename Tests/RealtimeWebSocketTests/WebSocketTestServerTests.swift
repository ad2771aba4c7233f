import Foundation
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTestServer
import RealtimeWebSocket

/// The transport against the in-repo ``TestServer`` `/ws` endpoint and its fault modes.
/// Handshake redirects and refusals are on the embedded stack (`WebSocketEmbeddedRedirectTests`,
/// `WebSocketEmbeddedCredentialTests`).
@Suite(.serialized, .timeLimit(.minutes(1))) struct WebSocketTestServerTests {
    static func server(tls: TestServer.Configuration.TLS? = nil) throws -> TestServer {
        let server = TestServer(configuration: TestServer.Configuration(tls: tls))
        try server.start()
        return server
    }

    @Test func echoAndClose() async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await withDeadline {
            let probe = TransportProbe(server.wsURL("/ws"))
            #expect(await probe.opened()?.status == 101)
            try await probe.transport.send(.text("one"))
            try await probe.transport.send(.binary([9, 8, 7]))
            #expect(await probe.message()?.content == .text("one"))
            #expect(await probe.message()?.content == .binary([9, 8, 7]))
            probe.transport.close(code: 4000, reason: "done")
            let (end, _) = await probe.ended()
            // The server's answer echoes the code without a reason: both are what `ended` reports.
            #expect(end?.clean == true && end?.code == 4000 && end?.reason == "")
            #expect(server.webSocketSessions.first?.closeReason == "done", "ours reached the server")
        }
    }

    @Test func serverMessagesThenCloseCode() async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await withDeadline {
            let probe = TransportProbe(server.wsURL("/ws?mode=send&count=3&close=1001&reason=bye"))
            let (end, messages) = await probe.ended()
            #expect(messages.map(\.text) == ["message 1", "message 2", "message 3"])
            #expect(end?.clean == true && end?.code == 1001 && end?.reason == "bye")
            // 1001 (going away) is an orderly end, not an error.
            #expect(end?.error == nil)
        }
    }

    @Test func normalCloseHasNoError() async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await withDeadline {
            let probe = TransportProbe(server.wsURL("/ws?mode=close&close=1000"))
            let (end, _) = await probe.ended()
            #expect(end?.clean == true && end?.code == 1000 && end?.error == nil)
        }
    }

    @Test func serverPingsAreAnswered() async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await withDeadline {
            let probe = TransportProbe(server.wsURL("/ws?ping_ms=20"))
            #expect(await probe.opened() != nil)
            for i in 0..<5 {
                try await probe.transport.send(.text("m\(i)"))
                #expect(await probe.message()?.text == "m\(i)")
            }
            probe.transport.close()
            let (end, _) = await probe.ended()
            #expect(end?.clean == true)
        }
    }

    @Test func heartbeatDetectsServerIgnoringPings() async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await withDeadline {
            var options = TransportProbe.quietOptions
            options.heartbeat = .ping(every: .milliseconds(100), missedLimit: 2)
            let probe = TransportProbe(server.wsURL("/ws?ignore_pings=1"), options: options)
            #expect(await probe.opened() != nil)
            let (end, _) = await probe.ended()
            #expect(end?.error?.code == .heartbeatTimeout)
        }
    }

    @Test func refusedUpgradeCarriesStatusAndExcerpt() async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await withDeadline {
            let probe = TransportProbe(server.wsURL("/ws?refuse=403"))
            let (end, _) = await probe.ended()
            #expect(end?.error?.code == .handshake)
            #expect(end?.error?.status == 403)
            #expect(end?.requestWasDelivered == true)
        }
    }

    @Test func wrongAcceptKeyFailsTheHandshake() async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await withDeadline {
            let probe = TransportProbe(server.wsURL("/ws?bad_accept=1"))
            let (end, _) = await probe.ended()
            #expect(end?.error?.code == .handshake)
            #expect(end?.error?.detail?.contains("Accept") == true)
        }
    }

    @Test func dropMidFrameDeliversNothingPartial() async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await withDeadline {
            for reset in [false, true] {
                let probe = TransportProbe(server.wsURL("/ws?drop_mid_frame=1&reset=\(reset ? 1 : 0)"))
                let (end, messages) = await probe.ended()
                #expect(messages.isEmpty)
                #expect(end?.clean == false)
                #expect(end?.error != nil)
            }
        }
    }

    @Test func stalledServerIsCaughtByHeartbeatOrIdleTimeout() async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await withDeadline {
            // The server upgrades, then neither reads nor writes.
            let idle = TransportProbe(server.wsURL("/ws?stall=1")) { $0.idleTimeout = .milliseconds(300) }
            #expect(await idle.opened() != nil)
            let (idleEnd, _) = await idle.ended()
            #expect(idleEnd?.error?.code == .idleTimeout)

            var options = TransportProbe.quietOptions
            options.heartbeat = .ping(every: .milliseconds(100), missedLimit: 1)
            let pinged = TransportProbe(server.wsURL("/ws?stall=1"), options: options) { $0.idleTimeout = nil }
            #expect(await pinged.opened() != nil)
            let (pingEnd, _) = await pinged.ended()
            #expect(pingEnd?.error?.code == .heartbeatTimeout)
        }
    }

    @Test func slowDripAssemblesWholeMessages() async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await withDeadline {
            // Every byte of the handshake and frames arrives alone.
            let probe = TransportProbe(server.wsURL("/ws?mode=send&count=3&drip=1&close=1000"))
            let (end, messages) = await probe.ended()
            #expect(messages.map(\.text) == ["message 1", "message 2", "message 3"])
            #expect(end?.clean == true && end?.error == nil)
        }
    }

    @Test(arguments: [
        ("masked", UInt16(1002)), ("rsv", 1002), ("utf8", 1007), ("opcode", 1002),
        ("control_size", 1002), ("fragmented_control", 1002), ("close_code", 1002),
    ])
    func protocolViolationsCloseWithTheRightCode(violation: String, closeCode: UInt16) async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await withDeadline {
            let probe = TransportProbe(server.wsURL("/ws?violation=\(violation)"))
            let (end, messages) = await probe.ended()
            #expect(messages.isEmpty)
            #expect(end?.clean == false)
            #expect(end?.error?.closeCode == closeCode, "\(violation): \(String(describing: end))")
            #expect(end?.code == 1006, "ours is the error's; the server sent no close frame")
        }
    }

    @Test func subprotocolIsReported() async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await withDeadline {
            let probe = TransportProbe(server.wsURL("/ws?protocol=chat")) { $0.subprotocols = ["chat", "other"] }
            #expect(await probe.opened()?.subprotocol == "chat")
            probe.transport.close()
            _ = await probe.ended()
        }
    }

    @Test func mutualTLSWithClientCertificate() async throws {
        let certs = WebSocketTLSTests.certificates
        let server = try Self.server(tls: .init(certificates: certs, requireClientCertificate: true))
        defer { server.stop() }
        try await withDeadline {
            let probe = TransportProbe(server.wsURL("/ws")) {
                $0.tls.trustRoots = .file(certs.caCertificateFile)
                $0.tls.clientCertificateFile = certs.clientCertificateFile
                $0.tls.clientKeyFile = certs.clientKeyFile
            }
            #expect(await probe.opened() != nil)
            try await probe.transport.send(.text("over mTLS"))
            #expect(await probe.message()?.text == "over mTLS")
            probe.transport.close()
            let (end, _) = await probe.ended()
            #expect(end?.clean == true)

            // Without the client certificate the server refuses the TLS session.
            let refused = TransportProbe(server.wsURL("/ws")) { $0.tls.trustRoots = .file(certs.caCertificateFile) }
            let (refusedEnd, _) = await refused.ended()
            #expect(refusedEnd?.error != nil)
            #expect(refusedEnd?.clean == false)
        }
    }

    @Test func backPressurePausesReadingWithoutLoss() async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await withDeadline(30) {
            // A small event buffer and a slow consumer: the transport must pause reading, not
            // drop or buffer without bound, and every message must arrive in order.
            let probe = TransportProbe(server.wsURL("/ws?mode=send&count=2000&close=1000")) { $0.eventBufferCapacity = 4 }
            var received = 0
            while let message = await probe.message() {
                received += 1
                #expect(message.text == "message \(received)")
                #expect(probe.events.bufferedCount <= 4 + 1)
                if received % 200 == 0 { await Task.yield() }
            }
            #expect(received == 2000)
            #expect(probe.end?.clean == true)
        }
    }
}

import Foundation
@_spi(Transport) import Realtime

/// One `rtcat` connection: a ``RealtimeClient`` whose events are printed as JSON lines
/// (``ConnectEventFormat``), optionally fed text messages to send. Used by `rtcat URL` and
/// by `rtcat demo`.
///
/// Exit status of ``run()``: 0 when `count` events arrived, or when the events ended without
/// the client giving up (a clean end without reconnect, an SSE 204, the end of `outgoing`);
/// 1 when the client gave up (an `error` with `willRetry: false`) or some input to send was
/// not sent (a line over the message limit, a send that failed).
struct ConnectSession {
    var url: URL
    var configuration: RealtimeClient.Configuration
    /// Stop (exit 0) after this many `event`s.
    var count: Int?
    /// Messages to send (WebSocket), in order. Those sent while no connection is open wait in
    /// the client's outbox and go out on the next one. When the sequence ends, the closing
    /// handshake starts (close 1000, RFC 6455 §7) once everything was sent; what still arrives
    /// is printed until the server's close (or the close timeout), then the session ends.
    var outgoing: AsyncStream<OutboundMessage>?
    /// The bound between the reader of `outgoing` and the sender (each message sent makes
    /// room for more), and whether some input was left unsent (then the exit status is 1).
    var outgoingFlow: InputFlow?
    /// Where the JSON lines go.
    var output: Int32 = STDOUT_FILENO
    /// Prefix for messages on standard error.
    var name = "rtcat"

    /// What happened, for callers that summarise (the demo).
    struct Outcome {
        var status: Int32
        var opens = 0
        var events = 0
        var errors = 0
        var gaveUp = false
    }

    /// Connects, prints until the end, and returns the outcome (``Outcome/status``: 0 or 1).
    func run() async -> Outcome {
        let gate = ConnectionGate()
        let client: RealtimeClient
        do {
            client = try makeClient(gate)
        } catch {
            StandardError.write("\(name): \(error)\n")
            return Outcome(status: Subcommand.failure)
        }
        let sender = outgoing.map { messages in Task { await send(messages, client, gate) } }
        let hangup = RestartSignal.install { client.restart() }
        var outcome = await printEvents(client, gate)
        hangup.cancel()
        client.close()
        sender?.cancel()
        outgoingFlow?.close()
        if outcome.gaveUp && !(count.map { outcome.events >= $0 } ?? false) { outcome.status = Subcommand.failure }
        if outgoingFlow?.failed == true { outcome.status = Subcommand.failure }
        return outcome
    }

    /// The library's own transports (SSE by http/https, WebSocket by ws/wss, with the
    /// configured heartbeat); each attempt's transport is kept for the closing handshake.
    /// Messages to send wait in the outbox while no connection is open (no timeout); it holds
    /// one message of up to ``StandardInputLines/maxLineBytes`` (they are sent one at a time).
    private func makeClient(_ gate: ConnectionGate) throws -> RealtimeClient {
        var configuration = configuration
        if outgoing != nil { configuration.sendPolicy = .queue(maxBytes: StandardInputLines.maxLineBytes, timeout: nil) }
        let factory = RealtimeClient.defaultTransportFactory(configuration: configuration)
        return try RealtimeClient(
            url: url, configuration: configuration, clock: ContinuousClock(), random: SystemRandomNumberGenerator(),
            transportFactory: { request in
                let transport = try factory(request)
                gate.attempting(transport)
                return transport
            })
    }

    /// Sends each message once it can go out, in order; at the end, closes our side.
    private func send(_ messages: AsyncStream<OutboundMessage>, _ client: RealtimeClient, _ gate: ConnectionGate) async {
        for await message in messages {
            defer { outgoingFlow?.release(InputFlow.size(of: message)) }
            do {
                try await client.send(message)
            } catch {
                if Task.isCancelled { return }
                // With the outbox waiting as long as the client runs, a send fails only when
                // the client stopped: nothing after it would go out either.
                outgoingFlow?.fail()
                StandardError.write("\(name): message not sent: \(error); no more input is sent\n")
                return
            }
        }
        if Task.isCancelled { return }
        closeOurSide(client, gate)
    }

    /// Starts the closing handshake on the open connection; the session goes on printing until
    /// the server's close. With no connection open, the client just stops.
    private func closeOurSide(_ client: RealtimeClient, _ gate: ConnectionGate) {
        // The `cancelled` error that follows is our own doing, not a failure.
        gate.closingByUs()
        if case .open = client.state, let transport = gate.transport {
            transport.close(code: 1000, reason: "")
        } else {
            client.close()
        }
    }

    /// Prints every event as a JSON line until the events end, the reader goes away, or
    /// `count` events arrived (then a live WebSocket is closed with 1000 and its closing
    /// handshake awaited, bounded by the transport's close timeout, without printing more, so
    /// the server sees an orderly close rather than a vanished peer).
    private func printEvents(_ client: RealtimeClient, _ gate: ConnectionGate) async -> Outcome {
        var writer = JSONLineWriter(fileDescriptor: output)
        var outcome = Outcome(status: Subcommand.success)
        var countReached = false
        for await event in client.events {
            if countReached {
                if case .closed = event { break }
                continue
            }
            guard outcome.record(event, closedByUs: gate.closedByUs) else { continue }
            writer.write(ConnectEventFormat.fields(event, reconnectionTime: client.reconnectionTime))
            // A line is visible as soon as it happened (rtcat is watched live, or piped to jq).
            writer.flush()
            if !writer.ok { break }  // the reader went away
            if let count, outcome.events >= count {
                countReached = true
                guard client.transportKind == .webSocket, case .open = client.state, let transport = gate.transport else { break }
                gate.closingByUs()
                transport.close(code: 1000, reason: "")
            }
        }
        return outcome
    }
}

extension ConnectSession.Outcome {
    /// Counts `event`; false when it is not printed (the `cancelled` error of our own close).
    mutating func record(_ event: ClientEvent, closedByUs: Bool) -> Bool {
        switch event {
        case .open: opens += 1
        case .event(let m): if !m.isComment { events += 1 }
        case .error(let e):
            if closedByUs && e.error.code == .cancelled { return false }
            errors += 1
            // `stream_ended` is the server's orderly end (a 204 answering a resume), not a give-up.
            if !e.willRetry && e.error.code != .streamEnded { gaveUp = true }
        case .closed: break
        }
        return true
    }
}

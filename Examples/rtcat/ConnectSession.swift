import Foundation
import Realtime

/// One `rtcat` connection: a ``RealtimeClient`` whose events are printed as JSON lines
/// (``ConnectEventFormat``), optionally fed text messages to send. Used by `rtcat URL` and
/// by `rtcat demo`.
///
/// Exit status of ``run()``: 0 when `count` events arrived, or when the events ended without
/// the client giving up (a clean end without reconnect, an SSE 204, the end of `outgoing`);
/// 1 when the client gave up (an `error` with `willRetry: false`).
struct ConnectSession {
    var url: URL
    var configuration: RealtimeClient.Configuration
    /// Stop (exit 0) after this many `event`s.
    var count: Int?
    /// Messages to send (WebSocket), each once a connection is open. When the sequence
    /// ends, the connection is closed with 1000 (the closing handshake of RFC 6455 §7) and the
    /// session ends after its `closed` line.
    var outgoing: AsyncStream<OutboundMessage>?
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
    }

    /// Connects, prints until the end, and returns the outcome (``Outcome/status``: 0 or 1).
    func run() async -> Outcome {
        let gate = ConnectionGate()
        // The library's own transports (SSE by http/https, WebSocket by ws/wss, with the
        // configured heartbeat); each attempt's transport is kept so that the end of
        // `outgoing` can close it with the closing handshake.
        let factory = RealtimeClient.defaultTransportFactory(configuration: configuration)
        let client: RealtimeClient
        do {
            client = try RealtimeClient(
                url: url, configuration: configuration, clock: ContinuousClock(), random: SystemRandomNumberGenerator(),
                transportFactory: { request in
                    let transport = try factory(request)
                    gate.attempting(transport)
                    return transport
                })
        } catch {
            StandardError.write("\(name): \(error)\n")
            return Outcome(status: Subcommand.failure)
        }

        let sender: Task<Void, Never>? = outgoing.map { messages in
            Task { [name] in
                for await message in messages {
                    while true {
                        guard let generation = await gate.waitUntilOpen() else { return }
                        do {
                            try await client.send(message)
                            break
                        } catch let error as RealtimeError where error.code == .notConnected {
                            // The connection dropped meanwhile: send it on the next one.
                            gate.sendFailed(generation: generation)
                            continue
                        } catch {
                            StandardError.write("\(name): message not sent: \(error)\n")
                            break
                        }
                    }
                    if Task.isCancelled { return }
                }
                // The `cancelled` error that follows is our own doing, not a failure.
                gate.closingByUs()
                if let transport = gate.liveTransport {
                    transport.close(code: 1000, reason: "")
                } else {
                    client.close()
                }
            }
        }

        var writer = JSONLineWriter(fileDescriptor: output)
        var outcome = Outcome(status: Subcommand.success)
        var gaveUp = false
        // After `count` events: a live WebSocket is closed with 1000 and the closing handshake
        // awaited (bounded by the transport's close timeout, 5 s) without printing more, so the
        // server sees an orderly close rather than a vanished peer.
        var countReached = false
        for await event in client.events {
            if countReached {
                if case .closed = event { break }
                continue
            }
            switch event {
            case .open:
                outcome.opens += 1
                gate.opened()
            case .event:
                outcome.events += 1
            case .error(let e):
                if gate.closedByUs && e.error.code == .cancelled { continue }
                outcome.errors += 1
                if !e.willRetry { gaveUp = true }
                gate.ended()
            case .closed:
                gate.ended()
            }
            writer.write(ConnectEventFormat.fields(event))
            // A line is visible as soon as it happened (rtcat is watched live, or piped to jq).
            writer.flush()
            if !writer.ok { break }  // the reader went away
            if let count, outcome.events >= count {
                countReached = true
                guard client.transportKind == .webSocket, let transport = gate.liveTransport else { break }
                gate.closingByUs()
                transport.close(code: 1000, reason: "")
            }
        }
        client.close()
        gate.finish()
        sender?.cancel()
        if gaveUp && !(count.map { outcome.events >= $0 } ?? false) { outcome.status = Subcommand.failure }
        return outcome
    }
}

import Foundation
import Realtime

// Chat: a WebSocket chat in a terminal. Each line typed is sent as a text message; each
// message received is printed as `< text`; what the connection is doing is printed as `* …`.
// Lines typed while the connection is down wait in the client's outbox and go out, in order
// and once, as soon as it is back.
//
//   Chat [--ping SECONDS] URL        a ws:// or wss:// chat endpoint
//   Chat --demo                      the embedded test server's echo endpoint
//
// Exit status: 0 at the end of input, 1 when the client gives up, 2 on a usage error.

let options = ChatOptions.parseOrExit()
let demo = options.demo ? DemoServer() : nil
let url = demo?.url ?? options.url!

var configuration = RealtimeClient.Configuration()
// Lines typed while offline wait (at most 100, for a minute) instead of failing.
configuration.sendPolicy = .queue(maxMessages: 100, timeout: .seconds(60))
// A ping every interval whatever the traffic: servers and proxies drop silent clients.
configuration.heartbeat = .ping(every: options.ping, mode: .fixedInterval)
// Reconnect quickly: a chat user is waiting.
configuration.backoff = .exponential(initial: .milliseconds(500), maximum: .seconds(5))
let client = try RealtimeClient(url: url, configuration: configuration)

// What the connection is doing, as the user sees it.
let status = Task {
    for await state in client.stateChanges {
        switch state {
        case .connecting(let attempt): Terminal.note("connecting (attempt \(attempt))")
        case .open(let info): Terminal.note("connected: \(info)")
        case .waitingForNetwork: Terminal.note("offline: waiting for the network")
        case .idle, .waitingToRetry, .suspended, .closed: break  // errors say when the retry is
        }
    }
}

// What arrives: messages, and failures with what the client does next.
let incoming = Task {
    for await event in client.events {
        switch event {
        case .event(let message): Terminal.line("< \(message.text ?? "(\(message.payloadByteCount) bytes of binary)")")
        case .error(let error): Terminal.note("\(error)")
        case .open, .closed: break
        }
    }
    // The events end when the client gives up (or is closed at the end of input).
    if case .closed(let reason?) = client.state, reason.code != .cancelled { exit(1) }
}

// What the user types, in order: sent now when connected, else when the connection is back.
for await line in InputLines.standardInput() {
    if case .open = client.state {} else { Terminal.note("not connected: \"\(line)\" goes out when the connection is back") }
    do {
        try await client.send(.text(line))
    } catch {
        Terminal.note("not sent: \"\(line)\": \(error)")
    }
}
client.close()
await incoming.value
status.cancel()
demo?.stop()

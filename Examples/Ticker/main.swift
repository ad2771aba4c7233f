import Foundation
import Realtime

// Ticker: follows an SSE feed and prints each event once as `ID DATA`, across restarts:
// the id of the last event printed is kept in a file, and a restarted Ticker resumes after it
// (`Last-Event-ID`). SIGINT or SIGTERM stops it after the event being printed.
//
//   Ticker --cursor FILE [--count N] URL      an http:// or https:// SSE feed
//   Ticker --cursor FILE [--count N] --demo   the embedded test server's feed (1000 events)
//
// Exit status: 0 when stopped (a signal, or N events printed), 1 when the client gives up,
// 2 on a usage error.

let options = TickerOptions.parseOrExit()
let demo = options.demo ? DemoFeed() : nil
let url = demo?.url ?? options.url!

var configuration = RealtimeClient.Configuration()
// The cursor survives restarts: loaded before the first connection, saved after each event.
configuration.cursorStore = FileCursor.store(at: options.cursorPath)
let client = try RealtimeClient(url: url, configuration: configuration)
StopSignals.onStop { client.close() }

var printed = 0
// An event counts as processed when this closure returns: only then does the cursor move
// past it. A throw leaves it unprocessed (it comes again after a restart).
try await client.consume { event, context in
    guard case .event(let message) = event else { return }
    Output.line("\(message.id ?? "-") \(message.text ?? "")")
    printed += 1
    if printed == options.count { context.stop() }
}

demo?.stop()
if case .closed(let reason?) = client.state, reason.code != .cancelled {
    Output.error("gave up: \(reason)")
    exit(1)
}

import Foundation
import RealtimeTestServer

/// `Ticker --demo`: the embedded test server's SSE feed, 1000 events 50 ms apart, resumed
/// after `Last-Event-ID` (it runs in Ticker's process, so it restarts with it).
struct DemoFeed {
    let server: TestServer

    init() {
        do {
            server = try TestServer.runDemoServer()
        } catch {
            Output.error("cannot start the demo server: \(error)")
            exit(1)
        }
    }

    var url: URL { server.url("/sse?count=1000&interval_ms=50&end=hold") }

    func stop() { server.stop() }
}

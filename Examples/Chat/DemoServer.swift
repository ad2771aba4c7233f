import Foundation
import RealtimeTestServer

/// `Chat --demo`: the embedded test server, whose `/ws` endpoint echoes every message.
struct DemoServer {
    let server: TestServer

    init() {
        do {
            server = try TestServer.runDemoServer()
        } catch {
            FileHandle.standardError.write(Data("Chat: cannot start the demo server: \(error)\n".utf8))
            exit(1)
        }
        Terminal.note("demo server on \(url.absoluteString): it echoes what you type")
    }

    var url: URL { server.wsURL("/ws") }

    func stop() { server.stop() }
}

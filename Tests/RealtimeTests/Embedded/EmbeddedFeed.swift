#if os(Linux)
import Foundation
import Realtime
import RealtimeTesting
import Testing

/// A numbered SSE feed played on an ``EmbeddedClient``'s connections, the way the loopback
/// test server plays `/sse?count=N&cuts=…`: each connection answers from the event after its
/// `Last-Event-ID`, a cut sends half of the next event and resets the connection, and a
/// resume after the last event is answered with 204 (the end). Every event's data ends with a
/// multi-byte suffix, so a code point cut across chunks would show.
enum EmbeddedFeed {
    static let suffix = " ✓ é 日本"

    static func data(_ id: Int) -> String { "event \(id)\(suffix)" }

    /// Plays events 1...`count`, cut after each id in `cuts`; the client's backoff is waited
    /// out on the loop's clock. Returns the number of connections.
    @discardableResult
    static func play(_ t: EmbeddedClient, count: Int, cuts: Set<Int>) async -> Int {
        var attempt = 0
        while true {
            let next = attempt + 1
            await t.waitForState("connection \(next)") { $0 == .connecting(attempt: next) }
            guard let server = t.sse(attempt) else { return attempt }
            let from = (server.request.lastEventID.flatMap { Int($0) } ?? 0) + 1
            if from > count {
                server.respond(status: 204, headers: [])
                server.finish()
                return attempt + 1
            }
            server.respond()
            // Events go out in chunks of up to 50, as a kernel would coalesce them; a cut ends
            // its chunk with half of the next event and resets the connection.
            let cut = cuts.filter { $0 >= from && $0 < count }.min()
            let last = cut ?? count
            var id = from
            while id <= last {
                let end = min(last, id + 49)
                var chunk = (id...end).flatMap { Array("data: \(data($0))\nid: \($0)\n\n".utf8) }
                if end == cut {
                    let next = Array("data: \(data(end + 1))\nid: \(end + 1)\n\n".utf8)
                    chunk += next.prefix(next.count / 2)
                }
                server.send(chunk)
                id = end + 1
            }
            if cut != nil { server.reset() }
            if cut == nil { server.finish() }
            await t.waitOutTheBackoff()
            attempt += 1
        }
    }

    static func ids(_ events: [ClientEvent]) -> [Int] {
        events.compactMap { if case .event(let m) = $0 { m.id.flatMap { Int($0) } } else { nil } }
    }

    /// Every `closed` follows an `open` with no other `closed` between them.
    static func closedPairsWithOpen(_ events: [ClientEvent]) -> Bool {
        var live = false
        for e in events {
            switch e {
            case .open: live = true
            case .closed:
                guard live else { return false }
                live = false
            default: break
            }
        }
        return true
    }
}
#endif

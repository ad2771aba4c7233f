import Foundation
import Realtime

extension RealtimeClient.Configuration {
    /// WebSocket resume for messages framed `"<id>|<payload>"` (scripts/netns/ws_server.py):
    /// the id before the bar is the cursor, and each attempt asks for what follows it with
    /// `?after=<cursor>`. SSE events (which have a type) keep their `id:` field.
    mutating func resumeWithIDPipeFraming() {
        messageID = { m in m.type == nil ? m.text?.split(separator: "|", maxSplits: 1).first.map(String.init) : nil }
        resumeURL = { url, cursor in
            guard let cursor else { return url }
            return URL(string: url.absoluteString + "?after=" + cursor)!
        }
    }
}

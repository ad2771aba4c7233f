#if os(Linux)
import Realtime
import Testing
@_spi(Transport) import RealtimeCore

/// Everything one transport attempt yielded, in order, with the checks every attempt must
/// pass whatever happened (``Transport`` contract item 2).
struct TransportTranscript: Sendable {
    var events: [TransportEvent] = []

    /// Starts `transport` and records its events until the attempt ends.
    static func record(_ transport: any Transport) async -> TransportTranscript {
        await record(transport.eventStream())
    }

    /// Records the events of a started transport until the attempt ends (at once if it has).
    static func record(_ events: TransportEvents) async -> TransportTranscript {
        var transcript = TransportTranscript()
        for await event in events { transcript.events.append(event) }
        return transcript
    }

    var opened: [ConnectionInfo] {
        events.compactMap { if case .opened(let info) = $0 { info } else { nil } }
    }
    var messages: [Message] {
        events.compactMap { if case .message(let message) = $0 { message } else { nil } }
    }
    var texts: [String] { messages.compactMap(\.text) }
    var ends: [TransportEnd] {
        events.compactMap { if case .ended(let end) = $0 { end } else { nil } }
    }
    /// The one `ended`, when there is exactly one and it came last.
    var end: TransportEnd? {
        guard ends.count == 1, case .ended(let end)? = events.last else { return nil }
        return end
    }

    /// Contract item 2: at most one `opened`, before any message; exactly one `ended`, last.
    func checkShape(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(opened.count <= 1, "\(summary)", sourceLocation: sourceLocation)
        if let first = events.firstIndex(where: { if case .message = $0 { true } else { false } }) {
            #expect(events[..<first].contains { if case .opened = $0 { true } else { false } },
                    "a message before opened: \(summary)", sourceLocation: sourceLocation)
        }
        #expect(ends.count == 1, "\(summary)", sourceLocation: sourceLocation)
        #expect(end != nil, "ended is not last: \(summary)", sourceLocation: sourceLocation)
    }

    /// `opened message×3 ended(cancelled)`, for failure messages.
    var summary: String {
        var parts: [String] = []
        var run = 0
        func flush() {
            if run > 0 { parts.append("message×\(run)") }
            run = 0
        }
        for event in events {
            switch event {
            case .message: run += 1
            case .messages(let batch): run += batch.count
            case .opened: flush(); parts.append("opened")
            case .retryHint: flush(); parts.append("retryHint")
            case .ended(let end):
                flush()
                parts.append("ended(\(end.error.map { "\($0)" } ?? (end.clean ? "clean" : "unclean")))")
            }
        }
        flush()
        return parts.joined(separator: " ")
    }
}
#endif

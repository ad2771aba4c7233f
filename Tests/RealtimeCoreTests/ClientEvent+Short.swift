import RealtimeCore

/// Compact forms for expectations: `open(1) event(a) error(network,retry) closed(reconnect)`.
extension ClientEvent {
    var short: String {
        switch self {
        case .open(let i): return "open(\(i.attempt))"
        case .event(let m): return "event(\(m.text ?? "?"))"
        case .error(let e): return "error(\(e.error.code),\(e.willRetry ? "retry" : "stop"))"
        case .closed(let c): return "closed(\(c.willReconnect ? "reconnect" : "final"))"
        }
    }

    var messageID: String? {
        if case .event(let m) = self { return m.id }
        return nil
    }

    var errorEvent: ErrorEvent? {
        if case .error(let e) = self { return e }
        return nil
    }

    var closeEvent: CloseEvent? {
        if case .closed(let c) = self { return c }
        return nil
    }
}

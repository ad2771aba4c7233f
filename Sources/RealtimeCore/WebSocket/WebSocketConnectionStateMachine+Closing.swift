extension WebSocketConnectionStateMachine {
    /// `close()` from the application, in any state: before the connection opens the attempt
    /// is abandoned; once open, the closing handshake starts (§7.1.2) with `code` (1000 when
    /// it is not valid on the wire, §7.4.1) and ends when the server has answered and closed
    /// TCP, or at the close deadline.
    package mutating func closeRequested(code: UInt16, reason: String, now: Instant) -> ClosingAction {
        switch state {
        case .idle, .handshaking, .refused:
            return .end(finish(TransportEnd(clean: false, error: .cancelled, requestWasDelivered: requestMayHaveBeenSent)))
        case .open:
            let wireCode = WebSocketCloseCode.isValidOnWire(code) ? code : WebSocketCloseCode.normal
            let end = TransportEnd(clean: false, error: .cancelled)
            return startClosing(.closingAsInitiator(receivedClose: false, end: end), code: wireCode, reason: reason, now: now)
        case .replying(let end, let code):
            // The violation stands; the window for replies closes now, and the failure gets
            // its own deadline (the window's is not a closing handshake to stay within).
            deadlines.close = nil
            return .fail(code: code, deadline: startFailing(end, now: now))
        case .closingAsInitiator, .closingAsResponder, .failing, .closed:
            return .none
        }
    }

    /// `abort()` from the application: the path is gone, so no closing handshake. A
    /// best-effort close frame (1001) when open, then the attempt ends at once. Nil when it
    /// already ended.
    package mutating func abortRequested() -> Ending? {
        switch state {
        case .idle, .handshaking, .refused:
            return finish(TransportEnd(clean: false, error: .cancelled, requestWasDelivered: requestMayHaveBeenSent))
        case .open:
            return finish(TransportEnd(clean: false, error: .cancelled), closeFrame: WebSocketCloseCode.goingAway)
        case .replying(let end, let code):
            return finish(end, closeFrame: code)
        case .closingAsInitiator(_, let end), .closingAsResponder(let end), .failing(let end):
            return finish(end)
        case .closed:
            return nil
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension WebSocketConnectionStateMachine {
    package enum StartAction: Sendable, Hashable {
        /// Arm the `connect` timer for `deadline`, open a socket to `url` and write the
        /// opening handshake.
        case connect(URL, deadline: Instant)
    }

    /// The attempt begins.
    package mutating func start(now: Instant) -> StartAction {
        guard case .idle = state else { preconditionFailure("WebSocketConnectionStateMachine.start called twice") }
        state = .handshaking
        return .connect(url, deadline: arm(.connect, at: now.advanced(by: configuration.connectTimeout)))
    }

    /// The byte stream waits for its turn to open (RFC 6455 §4.1: one connection at a time
    /// in CONNECTING per address): the wait is not part of the attempt, so the `connect`
    /// deadline is off until ``streamBeginsAfterWaiting(now:)``. True: cancel its timer.
    package mutating func streamWaitsForItsTurn() -> Bool {
        guard case .handshaking = state, !requestMayHaveBeenSent, deadlines[.connect] != nil else { return false }
        deadlines[.connect] = nil
        waitingForTurn = true
        return true
    }

    /// The byte stream's turn came: the `connect` deadline runs from now, whole. nil when
    /// nothing is to arm (it did not wait, or the attempt ended meanwhile).
    package mutating func streamBeginsAfterWaiting(now: Instant) -> Instant? {
        guard waitingForTurn else { return nil }
        waitingForTurn = false
        guard case .handshaking = state, !requestMayHaveBeenSent else { return nil }
        return arm(.connect, at: now.advanced(by: configuration.connectTimeout))
    }

    /// The byte stream connected (TCP, the proxy tunnel, TLS): the opening handshake it holds
    /// goes out now, so from here on the request may have reached the server and every end
    /// reports `TransportEnd.requestWasDelivered` true (the SSE transport marks the same
    /// moment with curl's pre-request callback).
    package mutating func streamConnected() {
        switch state {
        case .handshaking: requestMayHaveBeenSent = true
        case .closed: break
        case .idle, .refused, .open, .closingAsInitiator, .closingAsResponder, .replying, .failing:
            preconditionFailure("the byte stream connected outside the handshake")
        }
    }

    package enum RedirectAction: Sendable, Hashable {
        /// Drop the socket and connect to `url`; send credentials (user headers marked
        /// sensitive, URL userinfo) only when `sendCredentials`.
        case follow(URL, sendCredentials: Bool)
        case end(Ending)
    }

    /// The server answered the handshake with a redirect to `next` (a 3xx with `Location`):
    /// followed within ``Configuration/maxRedirects``, never from `wss` to `ws` unless
    /// ``Configuration/allowsInsecureRedirects`` (the handshake, its headers and every message
    /// would then cross the network in clear text).
    package mutating func redirected(to next: URL, status: Int) -> RedirectAction {
        guard case .handshaking = state else { preconditionFailure("redirect outside the handshake") }
        redirects += 1
        guard redirects <= configuration.maxRedirects else {
            let error = RealtimeError(.redirect, detail: "more than \(configuration.maxRedirects) redirects", status: status)
            return .end(finish(TransportEnd(clean: false, error: error, requestWasDelivered: requestMayHaveBeenSent)))
        }
        if Self.isSecure(url), !Self.isSecure(next), !configuration.allowsInsecureRedirects {
            let error = RealtimeError(
                .redirect, detail: "refused a redirect from wss to ws (allowsInsecureRedirects is off)", status: status)
            return .end(finish(TransportEnd(clean: false, error: error, requestWasDelivered: requestMayHaveBeenSent)))
        }
        // Credentials never leave their origin (as for SSE, RFC 9110 §15.4 / RFC 6454).
        if HTTPOrigin(url) != HTTPOrigin(next) { credentialsDropped = true }
        url = next
        return .follow(next, sendCredentials: !credentialsDropped)
    }

    static func isSecure(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return scheme == "wss" || scheme == "https"
    }

    package enum RefusedAction: Sendable, Hashable {
        /// The excerpt is complete: build the error and report ``handshakeFailed(_:)``.
        case finishErrorBody
        /// Re-arm the `connect` timer for `deadline` and gather body bytes until then.
        case collectBody(deadline: Instant)
    }

    /// The server answered with a status that is neither 101 nor a redirect.
    package mutating func handshakeRefused(now: Instant, bodyComplete: Bool) -> RefusedAction {
        guard case .handshaking = state else { preconditionFailure("refusal outside the handshake") }
        state = .refused
        if bodyComplete { return .finishErrorBody }
        return .collectBody(deadline: arm(.connect, at: now.advanced(by: RealtimeError.bodyExcerptWait)))
    }

    package enum OpenAction: Sendable, Hashable {
        /// Cancel the `connect` timer, arm the given ones, report `opened`, write the
        /// messages sent during the handshake, then decode the bytes behind the 101.
        case open(heartbeat: Instant?, idle: Instant?)
    }

    /// The server accepted the handshake (101 with every check passed).
    package mutating func handshakeSucceeded(now: Instant) -> OpenAction {
        guard case .handshaking = state else { preconditionFailure("upgrade outside the handshake") }
        state = .open
        hasOpened = true
        deadlines.connect = nil
        lastRead = now
        var heartbeatAt: Instant?
        if configuration.heartbeat.isEnabled {
            heartbeat.start(now: now)
            heartbeatAt = heartbeat.nextDeadline.map { arm(.heartbeat, at: $0) }
        }
        let idleAt = configuration.idleTimeout.map { arm(.idle, at: now.advanced(by: $0)) }
        return .open(heartbeat: heartbeatAt, idle: idleAt)
    }

    /// The handshake cannot go on: a bad URL or option, an invalid answer, the refusal error
    /// once its excerpt is in. Nil when the attempt already ended.
    package mutating func handshakeFailed(_ error: RealtimeError) -> Ending? {
        switch state {
        case .idle, .handshaking, .refused:
            return finish(TransportEnd(clean: false, error: error, requestWasDelivered: requestMayHaveBeenSent))
        case .closed:
            return nil
        case .open, .closingAsInitiator, .closingAsResponder, .replying, .failing:
            preconditionFailure("handshake failure after the handshake")
        }
    }
}

extension WebSocketConnectionStateMachine {
    /// The byte stream's write counters, as the driver reads them: the write-progress watch
    /// (``Configuration/writeTimeout``) compares them over time.
    package struct OutboundProgress: Sendable, Hashable {
        /// Bytes handed to the stream that the kernel has not taken yet.
        package var pendingBytes: Int
        /// Every byte the kernel has taken so far (only grows; ciphertext under TLS).
        package var bytesWritten: UInt64

        package init(pendingBytes: Int = 0, bytesWritten: UInt64 = 0) {
            self.pendingBytes = pendingBytes
            self.bytesWritten = bytesWritten
        }
    }

    package enum WriteAction: Sendable, Hashable {
        case none
        /// Arm the `write` timer for this deadline.
        case watch(deadline: Instant)
    }

    /// The driver handed bytes to the stream (messages, pongs, heartbeats) and `outbound` is
    /// what the stream reports just after. Bytes left waiting for the kernel start the
    /// write-progress watch: a peer that does not read (its TCP window stays shut) would
    /// otherwise hold every sender behind back-pressure forever, with no error. Only while
    /// open: closing and failing have deadlines of their own.
    package mutating func bytesWritten(_ outbound: OutboundProgress, now: Instant) -> WriteAction {
        guard case .open = state, let timeout = configuration.writeTimeout, outbound.pendingBytes > 0 else { return .none }
        if let progress = writeProgress, progress.bytesWritten != outbound.bytesWritten {
            writeProgress = (outbound.bytesWritten, now)
        }
        guard deadlines.write == nil else { return .none }
        if writeProgress == nil { writeProgress = (outbound.bytesWritten, now) }
        return .watch(deadline: arm(.write, at: now.advanced(by: Self.writeCheckInterval(timeout))))
    }

    /// The watch looks every quarter of the timeout, so the kernel's counter is seen moving
    /// soon after it moved: the connection fails between 1 and 1.25 timeouts after the last
    /// byte left, never before one.
    static func writeCheckInterval(_ timeout: Duration) -> Duration { timeout / 4 }

    /// The `write` timer: nothing waiting any more ends the watch; a counter that moved
    /// restarts the period; a whole period without a byte taken fails the attempt with
    /// `peerNotReading` (a best-effort close frame 1008; the peer is not reading it).
    mutating func writeTimerFired(_ outbound: OutboundProgress, now: Instant) -> TimerAction {
        guard case .open = state, let timeout = configuration.writeTimeout, let progress = writeProgress else { return .none }
        guard outbound.pendingBytes > 0 else {
            writeProgress = nil
            return .none
        }
        if progress.bytesWritten != outbound.bytesWritten {
            writeProgress = (outbound.bytesWritten, now)
        } else if progress.at.duration(to: now) >= timeout {
            let error = RealtimeError(
                .peerNotReading,
                detail: "the peer took none of the \(outbound.pendingBytes) bytes waiting to be sent for \(timeout.millisecondsDescription)",
                closeCode: WebSocketCloseCode.policyViolation)
            return .end(finish(TransportEnd(clean: false, error: error), closeFrame: error.closeCode))
        }
        let since = writeProgress?.at ?? now
        let next = min(now.advanced(by: Self.writeCheckInterval(timeout)), since.advanced(by: timeout))
        return .rearm(arm(.write, at: next))
    }
}

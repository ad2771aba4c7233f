/// The stage between the frame decoder and the message assembler in a
/// ``WebSocketReceiver``: permessage-deflate (RFC 7692 §7.2.2) turns the frames of a
/// compressed message back into plain ones.
///
/// This module has no zlib: the WebSocket transport provides the real inflater, and
/// ``WebSocketNoInflater`` stands in when no extension was negotiated. An optional inflater
/// is an inflater too (nil passes frames through), for a connection that learns at its
/// handshake whether it needs one.
@usableFromInline package protocol WebSocketFrameInflater {
    /// Whether a frame still arriving belongs to a compressed message: its bytes mean nothing
    /// until inflated, so the assembler's early checks must not look at them.
    func isCompressed(_ header: WebSocketFrameHeader) -> Bool

    /// Returns `frame` with its payload inflated when it belongs to a compressed message
    /// (RSV1 cleared), or unchanged otherwise. Errors carry the close code to send.
    mutating func inflate(_ frame: consuming WebSocketFrame) throws(RealtimeError) -> WebSocketFrame
}

/// No extension: frames pass through unchanged.
@usableFromInline package struct WebSocketNoInflater: WebSocketFrameInflater, Sendable {
    @usableFromInline package init() {}

    @inlinable
    package func isCompressed(_ header: WebSocketFrameHeader) -> Bool { false }

    @inlinable
    package func inflate(_ frame: consuming WebSocketFrame) throws(RealtimeError) -> WebSocketFrame { frame }
}

extension Optional: WebSocketFrameInflater where Wrapped: WebSocketFrameInflater {
    @inlinable
    package func isCompressed(_ header: WebSocketFrameHeader) -> Bool {
        self?.isCompressed(header) ?? false
    }

    @inlinable
    package mutating func inflate(_ frame: consuming WebSocketFrame) throws(RealtimeError) -> WebSocketFrame {
        guard case .some(var wrapped) = self else { return frame }
        let inflated = try wrapped.inflate(frame)
        self = .some(wrapped)
        return inflated
    }
}

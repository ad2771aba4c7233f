@_spi(Transport) import RealtimeCore

/// A connected, ordered, reliable byte stream (TCP, optionally wrapped in TLS): the only way
/// transports reach the network, so that the codecs and state machines above it never see
/// a file descriptor.
///
/// The interface is small on purpose so that a Network.framework (`NWConnection`) backend
/// can sit beside the Linux epoll one. Threading: a stream belongs to one event loop; every
/// method except creation must be called on that loop's thread, and every delegate callback
/// arrives there.
///
/// Life cycle: ``connect(to:)`` once → ``ByteStreamDelegate/byteStreamDidConnect(_:)`` →
/// any number of ``ByteStreamDelegate/byteStream(_:didRead:)`` → exactly one
/// ``ByteStreamDelegate/byteStream(_:didCloseWith:)`` (EOF, failure), unless the owner calls
/// ``close()`` first, after which no callback is made at all.
package protocol ByteStream: AnyObject, Sendable {
    /// Receives the stream's callbacks; held weakly.
    var delegate: (any ByteStreamDelegate)? { get set }

    /// Resolves the host (off the loop thread), connects (trying each address in order),
    /// and runs the TLS handshake when `endpoint.tls` is set.
    func connect(to endpoint: ByteStreamEndpoint)

    /// Queues `bytes` after everything written before. `completion` (optional) runs on the
    /// loop once the bytes (or their TLS records) have been handed to the kernel, or with an
    /// error if the stream fails or closes first. Only once the stream is connected
    /// (``ByteStreamDelegate/byteStreamDidConnect(_:)``; a precondition): what the owner wants
    /// to send before waits in the owner's own queue, so a stream holds bytes for the kernel
    /// only. After the end, the completion fails with `notConnected`.
    func write(_ bytes: [UInt8], completion: (@Sendable (RealtimeError?) -> Void)?)

    /// Starts coalescing: writes until the matching ``endBatch()`` are queued without a system
    /// call (and, under TLS, encrypted together into full records), then handed to the kernel
    /// at once. Batches nest.
    func beginBatch()
    func endBatch()

    /// Bytes accepted by ``write(_:completion:)`` that the kernel has not taken yet.
    var pendingWriteBytes: Int { get }

    /// Every byte the kernel has taken from this stream (ciphertext under TLS): a counter
    /// that only grows, so an owner can tell whether a peer still reads.
    var bytesWrittenToKernel: UInt64 { get }

    /// Stops delivering reads (and stops reading the socket, so TCP flow control pushes back
    /// on the peer) until ``resumeReading()``.
    func pauseReading()
    func resumeReading()

    /// Closes the connection at once: what is pending gets one non-blocking attempt to reach
    /// the kernel (a last close frame), pending writes fail with `notConnected`, no delegate
    /// callback follows. Idempotent.
    func close()

    /// The owner's opening handshake is over (upgraded or refused): the next stream waiting
    /// for the same address may begin (``ByteStreamEndpoint/pendingLimit``). Idempotent; the
    /// end of the stream does the same.
    func openingEnded()
}

extension ByteStream {
    package func openingEnded() {}
}

/// Callbacks of a ``ByteStream``, always on its event loop thread.
package protocol ByteStreamDelegate: AnyObject {
    /// TCP is connected and, for TLS, the handshake and certificate checks passed.
    func byteStreamDidConnect(_ stream: any ByteStream)
    /// Bytes arrived (plaintext for TLS). The buffer is only valid during the call.
    func byteStream(_ stream: any ByteStream, didRead bytes: UnsafeRawBufferPointer)
    /// The stream is over: `nil` for an orderly end of file from the peer, otherwise why it
    /// failed (`dnsFailure`, `network`, `connectTimeout`, `tls`, ...). Called once.
    func byteStream(_ stream: any ByteStream, didCloseWith error: RealtimeError?)
    /// The stream waits for its turn to open (``ByteStreamEndpoint/pendingLimit``): the wait
    /// is not part of the attempt (the stream's own connect timeout is off meanwhile).
    func byteStreamWaitsForItsTurn(_ stream: any ByteStream)
    /// The stream's turn came: it connects now.
    func byteStreamBeginsAfterWaiting(_ stream: any ByteStream)
}

extension ByteStreamDelegate {
    package func byteStreamWaitsForItsTurn(_ stream: any ByteStream) {}
    package func byteStreamBeginsAfterWaiting(_ stream: any ByteStream) {}
}

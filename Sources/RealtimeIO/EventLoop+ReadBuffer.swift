#if os(Linux)
extension EventLoop {
    /// Lends `body` the loop's receive buffer, at least `minimum` bytes. Loop thread only.
    ///
    /// Why one buffer per loop and not one per socket: every read runs on this thread and
    /// its bytes are handed to their consumer before the next read starts, so one buffer
    /// serves every connection. A buffer per connection sized for bursts (64 KiB) would stay
    /// allocated, and partly resident, on every quiet connection; with thousands of them
    /// that was most of a connection's memory. A caller that keeps bytes past `body` copies
    /// them. A nested read (a handler that reads another socket while one read is being
    /// delivered) gets a buffer of its own for that read.
    func withReadBuffer<R>(minimum: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        precondition(inEventLoop, "EventLoop.withReadBuffer must be called on the loop thread")
        if state.readBufferLent {
            let own = UnsafeMutableRawBufferPointer.allocate(byteCount: minimum, alignment: 16)
            defer { own.deallocate() }
            return try body(own)
        }
        if let buffer = state.readBuffer, buffer.count < minimum {
            buffer.deallocate()
            state.readBuffer = nil
        }
        let buffer = state.readBuffer ?? .allocate(byteCount: minimum, alignment: 16)
        state.readBuffer = buffer
        state.readBufferLent = true
        defer { state.readBufferLent = false }
        return try body(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<minimum]))
    }
}
#endif

/// The TCP connection a transfer uses: local port, remote address and port.
package struct HTTP2ConnectionID: Hashable, Sendable {
    package var localPort: Int
    package var remotePort: Int
    package var remoteAddress: String

    package init(localPort: Int, remotePort: Int, remoteAddress: String) {
        self.localPort = localPort
        self.remotePort = remotePort
        self.remoteAddress = remoteAddress
    }
}

/// When the HTTP/2 streams of one origin may start, so that they pack onto as few
/// connections as the server's stream limit allows (a pure state machine: the driver
/// submits, reports when a transfer's connection is ready and when a transfer ends, and
/// starts what it is told to).
///
/// A transfer counts as open once the server answered its request (its response head: the
/// stream was accepted, not refused for the server's limit). A transfer never waits for
/// that longer than ``maxHold`` (the driver then releases it), so a server slow to answer
/// (a model behind a queue) delays the next request to it by that much at most. An origin
/// whose first connection did not negotiate `h2` is not held at all: every transfer needs a
/// connection of its own there.
///
/// libcurl places a new stream on a connection of the origin that has room, and otherwise
/// opens a connection, one per stream started while no connection has room: it does not
/// wait for a connection it is still opening once it knows the origin multiplexes, and a
/// burst sent before the server's `SETTINGS_MAX_CONCURRENT_STREAMS` arrived is refused and
/// sent again on connections of their own. So streams of an origin start in waves:
/// - while no stream of the origin is open, one starts (it opens the first connection and
///   tells whether the origin multiplexes);
/// - while the server's stream limit is unknown, in waves: once every stream of a wave has
///   its head, as many start as are open (doubling, as TCP's slow start does), so
///   at most one wave overflows the first connection;
/// - once the limit is known (learned when a stream had to open a new connection beside
///   open ones: the streams per connection then were the limit), as many as the open
///   connections have room for, or one when they are full (it opens the next connection);
///   a transfer whose ``maxHold`` ends while that connection opens waits for it instead of
///   opening another beside it. (Counting the new connection's places once it is ready,
///   before that stream's head, is too early: libcurl has not read the server's settings
///   then and opens a connection per stream.)
package struct HTTP2Admission<Handle: Hashable> {
    private struct Origin {
        var queue: [Handle] = []
        var queueStart = 0
        /// Queued handles that left before their turn.
        var left: Set<Handle> = []
        var starting: Set<Handle> = []
        var open: [Handle: HTTP2ConnectionID] = [:]
        /// Open streams per connection.
        var connections: [HTTP2ConnectionID: Int] = [:]
        var limit: Int?
        /// Whether the origin's connections speak HTTP/2 (nil until one is ready).
        var multiplexes: Bool?
        /// Streams started, once the limit is known, while the connections were full: each
        /// opens the next connection.
        var openers: Set<Handle> = []

        mutating func opened(_ handle: Handle, on connection: HTTP2ConnectionID) {
            open[handle] = connection
            connections[connection, default: 0] += 1
        }

        mutating func closed(_ handle: Handle) -> Bool {
            guard let connection = open.removeValue(forKey: handle) else { return false }
            let left = (connections[connection] ?? 1) - 1
            connections[connection] = left > 0 ? left : nil
            return true
        }

        var waiting: Int { queue.count - queueStart - left.count }
        var isIdle: Bool { waiting == 0 && starting.isEmpty && open.isEmpty }
    }

    private var origins: [String: Origin] = [:]
    private var originOf: [Handle: String] = [:]

    package init() {}

    /// The server's stream limit learned for `origin` (for tests and diagnostics).
    package func limit(of origin: String) -> Int? { origins[origin]?.limit }

    /// A transfer to `origin` wants to start; returns the transfers to start now (it, or
    /// none while it waits its turn).
    package mutating func submit(_ handle: Handle, origin: String) -> [Handle] {
        originOf[handle] = origin
        origins[origin, default: Origin()].queue.append(handle)
        return admit(origin)
    }

    /// The longest a transfer waits for its turn.
    package static var maxHold: Duration { .milliseconds(500) }

    /// The transfer's connection is ready: whether it negotiated HTTP/2 tells whether the
    /// origin multiplexes (when it does not, everything waiting starts); returns the
    /// transfers to start now.
    package mutating func negotiated(_ handle: Handle, multiplexed: Bool) -> [Handle] {
        guard let name = originOf[handle], origins[name]?.multiplexes != multiplexed else { return [] }
        origins[name]?.multiplexes = multiplexed
        return admit(name)
    }

    /// The transfer waited ``maxHold``: it starts now if it still waits (returned), unless the
    /// origin's connections are full and the next one is being opened for it: it would only
    /// open another beside it.
    package mutating func release(_ handle: Handle) -> [Handle] {
        // Submitted and neither starting, open nor gone: still in the queue.
        guard let name = originOf[handle], var origin = origins[name], !origin.starting.contains(handle),
            origin.open[handle] == nil, !origin.left.contains(handle)
        else { return [] }
        if origin.limit != nil, !origin.openers.isEmpty, Self.spare(origin) - origin.starting.count <= 0 { return [] }
        origin.left.insert(handle)  // its place in the queue is skipped when reached
        origin.starting.insert(handle)
        origins[name] = origin
        return [handle]
    }

    /// The transfer's response head arrived, on `connection` (nil when unknown), which it
    /// opened itself when `openedConnection`; returns the transfers to start now.
    package mutating func answered(_ handle: Handle, connection: HTTP2ConnectionID?, openedConnection: Bool) -> [Handle] {
        guard let name = originOf[handle], var origin = origins[name], origin.starting.remove(handle) != nil else { return [] }
        origin.openers.remove(handle)
        if openedConnection, !origin.open.isEmpty, let connection, origin.connections[connection] == nil {
            origin.limit = max(origin.limit ?? 0, origin.connections.values.max() ?? 0)
        }
        origin.opened(handle, on: connection ?? HTTP2ConnectionID(localPort: 0, remotePort: 0, remoteAddress: ""))
        origins[name] = origin
        return admit(name)
    }

    /// The transfer ended (or left before it started); returns the transfers to start now.
    package mutating func ended(_ handle: Handle) -> [Handle] {
        guard let name = originOf.removeValue(forKey: handle), var origin = origins[name] else { return [] }
        origin.openers.remove(handle)
        if origin.starting.remove(handle) == nil, !origin.closed(handle) {
            origin.left.insert(handle)  // still queued: skipped when its turn comes
        }
        origins[name] = origin
        let started = admit(name)
        if origins[name]?.isIdle == true, origins[name]?.limit == nil { origins[name] = nil }
        return started
    }

    /// How many more may start now.
    private static func room(_ origin: Origin) -> Int {
        if origin.multiplexes == false { return Int.max }
        let starting = origin.starting.count
        guard !origin.open.isEmpty else { return max(0, 1 - starting) }
        // A wave as large as the streams open, once the last wave has its heads.
        guard origin.limit != nil else { return starting == 0 ? origin.open.count : 0 }
        // Full: one opens the next connection (none while it is starting).
        return max(0, max(Self.spare(origin), 1) - starting)
    }

    /// Places on the origin's connections that no open stream holds; the limit is known.
    private static func spare(_ origin: Origin) -> Int {
        (origin.limit ?? 0) * origin.connections.count - origin.open.count
    }

    private mutating func admit(_ name: String) -> [Handle] {
        guard var origin = origins[name] else { return [] }
        var started: [Handle] = []
        var room = Self.room(origin)
        // Started while the known limit leaves no place: it opens the next connection.
        let opens = origin.limit != nil && origin.multiplexes != false && !origin.open.isEmpty
            && Self.spare(origin) - origin.starting.count <= 0
        while room > 0, origin.waiting > 0 {
            let next = origin.queue[origin.queueStart]
            origin.queueStart += 1
            if origin.left.remove(next) != nil { continue }
            origin.starting.insert(next)
            if opens { origin.openers.insert(next) }
            started.append(next)
            room -= 1
        }
        if origin.queueStart > 64, origin.queueStart * 2 > origin.queue.count {
            origin.queue.removeFirst(origin.queueStart)
            origin.queueStart = 0
        }
        origins[name] = origin
        return started
    }
}

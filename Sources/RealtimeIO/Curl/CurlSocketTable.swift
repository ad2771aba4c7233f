/// Which of curl's sockets the driver watches, by descriptor, each with the identity of the
/// open file it was registered for (device and inode), sans I/O.
///
/// libcurl can close a socket without first announcing `CURL_POLL_REMOVE` (a connection the
/// full connection cache discards as it is handed back, for one). The kernel then drops the
/// epoll entry, and the next socket curl opens usually gets the same descriptor number: a
/// table keyed by number alone would take the new socket for the old one, change nothing (or
/// fail to modify an entry that is gone), and never watch it, so that transfer would hang
/// until its timeout. The identity tells the two apart.
package struct CurlSocketTable<Registration> {
    package struct Identity: Hashable, Sendable {
        package var device: UInt64
        package var inode: UInt64

        package init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }
    }

    package enum Action {
        /// Not watched yet: register it.
        case register
        /// Watched as this same socket: change the interest.
        case modify(Registration)
        /// The number was watched for a socket since closed: drop that registration, then
        /// register this one.
        case replace(Registration)
    }

    private var entries: [Int32: (registration: Registration, identity: Identity?)] = [:]

    package init() {}

    /// curl announced `fd` (currently the open file `identity`; nil when unknown) with an
    /// interest: what the driver does.
    package func announce(_ fd: Int32, identity: Identity?) -> Action {
        guard let entry = entries[fd] else { return .register }
        if let identity, let known = entry.identity, identity != known { return .replace(entry.registration) }
        return .modify(entry.registration)
    }

    /// The driver registered `fd` as `identity`.
    package mutating func registered(_ fd: Int32, _ registration: Registration, identity: Identity?) {
        entries[fd] = (registration, identity)
    }

    /// curl said `CURL_POLL_REMOVE`: the registration to drop, if any.
    package mutating func remove(_ fd: Int32) -> Registration? {
        entries.removeValue(forKey: fd)?.registration
    }

    /// Every registration (the driver's teardown).
    package var registrations: [Registration] { entries.values.map(\.registration) }

    package var count: Int { entries.count }
}

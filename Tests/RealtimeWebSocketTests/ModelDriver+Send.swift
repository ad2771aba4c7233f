@testable import RealtimeCore
import RealtimeWebSocket

/// The send side of ``ModelDriver``: a ``WebSocketSendMachine`` driven the way the connection
/// drives it (its phase follows the connection machine's actions), with every sender's fate
/// recorded, so the fuzz test can check that each sender is resolved exactly once, messages
/// are written in the order they were sent, only while open or just before the close frame,
/// and within the queue's bounds.
struct SendModel {
    enum Fate: Equatable {
        /// A non-flush sender returned once its message was accepted.
        case returned
        /// A flush sender returned once its frame reached the kernel.
        case written
        case failed
    }

    var machine = WebSocketSendMachine<Int>(capacity: 3, maxBytes: 30)
    private(set) var senders = 0
    private(set) var fates: [Int: Fate] = [:]
    private(set) var resolvedTwice = 0
    /// Ids in the order their frames were handed to the stream.
    private(set) var written: [Int] = []
    private(set) var boundBroken = 0
    /// The driver owes the machine a drain (``WebSocketSendMachine/takeWritable()``).
    private(set) var drainAsked = false
    /// Batches handed to the stream, not yet taken by the kernel: their entries.
    private var writes: [[WebSocketSendMachine<Int>.Entry]] = []

    var hasUnsettledWrite: Bool { !writes.isEmpty }

    private mutating func resolve(_ id: Int, _ fate: Fate) {
        if fates[id] != nil { resolvedTwice += 1 }
        fates[id] = fate
    }

    private mutating func checkBounds() {
        let m = machine
        if m.inFlight > 1 && (m.inFlight > m.capacity || m.inFlightBytes > m.maxBytes) { boundBroken += 1 }
    }

    /// A `send` from the application (`size` payload bytes).
    mutating func send(flush: Bool, size: Int) {
        senders += 1
        let id = senders
        let message = OutboundMessage.binary([UInt8](repeating: 0, count: size))
        switch machine.submit(message, waiter: id, flush: flush, id: UInt64(id)) {
        case .accepted(let drain):
            if !flush { resolve(id, .returned) }
            if drain { drainAsked = true }
        case .waiting: break
        case .rejected: resolve(id, .failed)
        }
        checkBounds()
    }

    /// The task of the newest waiting sender is cancelled.
    mutating func cancelNewest() {
        if let waiter = machine.cancelWaiting(id: UInt64(senders)) { resolve(waiter, .failed) }
    }

    /// `close()` or `abort()` from the application, before the loop hears of it.
    mutating func stopAccepting() {
        for waiter in machine.stopAccepting() { resolve(waiter, .failed) }
    }

    /// Hands `entries` to the stream; returns how many frames that wrote.
    private mutating func hand(_ entries: [WebSocketSendMachine<Int>.Entry]) -> Int {
        guard !entries.isEmpty else { return 0 }
        written += entries.map { Int($0.id) }
        writes.append(entries)
        return entries.count
    }

    mutating func opened() -> Int { hand(machine.opened()) }

    mutating func drain() -> Int {
        drainAsked = false
        return hand(machine.takeWritable())
    }

    mutating func closingStarted(_ closing: WebSocketSendMachine<Int>.Closing) -> Int {
        let resolution = machine.closingStarted(closing)
        for waiter in resolution.fail { resolve(waiter, .failed) }
        return hand(resolution.write)
    }

    /// The kernel took the oldest batch (or it failed: `error`).
    mutating func settleOldestWrite(failed: Bool) {
        let batch = writes.removeFirst()
        for entry in batch {
            if let waiter = entry.waiter { resolve(waiter, failed ? .failed : .written) }
        }
        let admission = machine.completed(count: batch.count, bytes: batch.reduce(0) { $0 + $1.size })
        for waiter in admission.resume { resolve(waiter, .returned) }
        if admission.drain { drainAsked = true }
        checkBounds()
    }

    /// The end: the stream's pending writes fail, then the machine gives up on the rest.
    mutating func ended() {
        while !writes.isEmpty { settleOldestWrite(failed: true) }
        let resolution = machine.ended()
        for waiter in resolution.fail { resolve(waiter, .failed) }
        drainAsked = false
    }

    /// What is broken, if anything.
    func problems(ended: Bool) -> [String] {
        var found: [String] = []
        if resolvedTwice > 0 { found.append("a sender was resolved twice") }
        if boundBroken > 0 { found.append("the queue's bounds were passed") }
        if written != written.sorted() { found.append("messages were written out of order: \(written)") }
        if ended, fates.count != senders { found.append("\(senders - fates.count) senders never resolved") }
        if ended, machine.inFlight != 0 || machine.queuedCount != 0 { found.append("the queue holds messages after the end") }
        return found
    }
}

#if os(Linux)
import Glibc
import RealtimeCore
import RealtimeIO
import RealtimeTestSupport
import Testing

@Suite("EventLoop", .timeLimit(.minutes(1)))
struct EventLoopTests {
    @Test("execute runs tasks in submission order, on the loop thread")
    func executeOrdering() async {
        let loop = EventLoop(name: "t-order")
        defer { loop.shutdown() }
        let seen = LockedValue<[Int]>([])
        let onLoop = LockedValue(true)
        #expect(!loop.inEventLoop)
        for i in 0..<2000 {
            loop.execute {
                if !loop.inEventLoop { onLoop.withLock { $0 = false } }
                seen.withLock { $0.append(i) }
            }
        }
        let result = await loop.submit { seen.withLock { $0 } }
        #expect(result == Array(0..<2000))
        #expect(onLoop.withLock { $0 })
    }

    @Test("execute from the loop thread runs later, never inline")
    func executeFromLoopIsDeferred() async {
        let loop = EventLoop(name: "t-defer")
        defer { loop.shutdown() }
        let order = await withCheckedContinuation { (c: CheckedContinuation<[String], Never>) in
            loop.execute {
                var log = ["outer-start"]
                let box = Box(log)
                loop.execute { box.value.append("inner"); c.resume(returning: box.value) }
                log.append("outer-end")
                box.value = log
            }
        }
        #expect(order == ["outer-start", "outer-end", "inner"])
    }

    @Test("timers fire in deadline order; cancel works")
    func timerOrder() async {
        let loop = EventLoop(name: "t-timers")
        defer { loop.shutdown() }
        // Deadlines 100 ms apart, so the microseconds between schedule() calls (even with
        // a preempted thread) cannot reorder them; exact tie-breaking is in TimerHeapTests.
        let fired = await withCheckedContinuation { (c: CheckedContinuation<[String], Never>) in
            loop.execute {
                let box = Box([String]())
                loop.schedule(after: .milliseconds(300)) { box.value.append("c300") }
                loop.schedule(after: .milliseconds(100)) { box.value.append("a100") }
                let dropped = loop.schedule(after: .milliseconds(50)) { box.value.append("cancelled") }
                loop.schedule(after: .milliseconds(200)) { box.value.append("b200") }
                loop.schedule(after: .zero) { box.value.append("now") }
                loop.cancel(dropped)
                loop.cancel(dropped)  // Idempotent.
                loop.schedule(after: .milliseconds(400)) { c.resume(returning: box.value) }
            }
        }
        #expect(fired == ["now", "a100", "b200", "c300"])
        #expect(await loop.submit { loop.pendingTimerCount } == 0)
    }

    @Test("timers never fire early")
    func timerNotEarly() async {
        let loop = EventLoop(name: "t-early")
        defer { loop.shutdown() }
        // The deadline is read on the loop thread before schedule(), and the firing time in the
        // callback: a loaded machine can only make the timer later, so this cannot race.
        let early = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            loop.execute {
                let deadline = ContinuousClock.now + .milliseconds(25)
                loop.schedule(after: .milliseconds(25)) { c.resume(returning: ContinuousClock.now < deadline) }
            }
        }
        #expect(!early, "fired before its deadline")
    }

    @Test("10,000 timers with seeded delays: each fires once and never early; cancelled ones never")
    func thousandsOfTimers() async {
        let loop = EventLoop(name: "t-many")
        defer { loop.shutdown() }
        struct Outcome: Sendable { var fired: [Int]; var expected: Set<Int>; var early: Int; var pending: Int }
        let outcome = await withCheckedContinuation { (c: CheckedContinuation<Outcome, Never>) in
            loop.execute {
                var rng = SeededGenerator(seed: 42)
                let fired = Box([Int]())
                let early = Box(0)
                var expected = Set<Int>()
                var handles: [TimerHandle] = []
                for i in 0..<10_000 {
                    let delay = Duration.microseconds(Int.random(in: 0...20_000, using: &rng))
                    // Read before schedule(): the loop's own deadline can only be later.
                    // (Firing order is the heap's job; TimerHeapTests checks it exactly.)
                    let deadline = ContinuousClock.now + delay
                    handles.append(loop.schedule(after: delay) {
                        fired.value.append(i)
                        if ContinuousClock.now < deadline { early.value += 1 }
                    })
                    expected.insert(i)
                }
                for i in stride(from: 0, to: 10_000, by: 3) {
                    loop.cancel(handles[i])
                    expected.remove(i)
                }
                loop.schedule(after: .milliseconds(60)) {
                    c.resume(returning: Outcome(fired: fired.value, expected: expected, early: early.value, pending: loop.pendingTimerCount))
                }
            }
        }
        #expect(outcome.fired.count == outcome.expected.count)
        #expect(Set(outcome.fired) == outcome.expected, "fired set differs")
        #expect(outcome.early == 0)
        #expect(outcome.pending == 0)
    }

    @Test("socketpair readiness: readable after the peer writes, writable at once")
    func fdReadiness() async throws {
        let loop = EventLoop(name: "t-fd")
        defer { loop.shutdown() }
        let (a, b) = try makeSocketPair()
        defer { close(a); close(b) }
        let received = await withCheckedContinuation { (c: CheckedContinuation<[UInt8], Never>) in
            loop.execute {
                let box = Box<IORegistration?>(nil)
                box.value = loop.register(fd: a, interest: .readable) { ready in
                    guard ready.contains(.readable) else { return }
                    var buf = [UInt8](repeating: 0, count: 16)
                    let n = read(a, &buf, 16)
                    loop.deregister(box.value!)
                    c.resume(returning: Array(buf.prefix(max(0, n))))
                }
                var msg: [UInt8] = [104, 105]
                _ = write(b, &msg, 2)
            }
        }
        #expect(received == [104, 105])
        let writable = await withCheckedContinuation { (c: CheckedContinuation<IOInterest, Never>) in
            loop.execute {
                let box = Box<IORegistration?>(nil)
                box.value = loop.register(fd: b, interest: [.readable, .writable]) { ready in
                    loop.deregister(box.value!)
                    c.resume(returning: ready)
                }
            }
        }
        #expect(writable.contains(.writable))
        #expect(await loop.submit { loop.registrationCount } == 0)
    }

    /// A pass that runs long (many busy connections) must not make a timer that fell due
    /// meanwhile see silence: bytes that arrived during the pass are handled before it fires.
    @Test("a timer that falls due during a long pass fires after the readiness that came meanwhile")
    func readinessBeforeTimersDueDuringAPass() async throws {
        let loop = EventLoop(name: "t-pass")
        defer { loop.shutdown() }
        let (a, b) = try makeSocketPair()
        defer { close(a); close(b) }
        let order = await withCheckedContinuation { (c: CheckedContinuation<[String], Never>) in
            loop.execute {
                let log = Box<[String]>([])
                let registration = Box<IORegistration?>(nil)
                registration.value = loop.register(fd: a, interest: .readable) { _ in
                    var byte: UInt8 = 0
                    _ = read(a, &byte, 1)
                    loop.deregister(registration.value!)
                    log.value.append("readable")
                }
                loop.schedule(after: .milliseconds(20)) {
                    log.value.append("timer")
                    c.resume(returning: log.value)
                }
                // The peer writes, then this pass keeps the loop busy past the timer's deadline.
                var byte: UInt8 = 1
                _ = write(b, &byte, 1)
                let busyUntil = ContinuousClock.now + .milliseconds(60)
                while ContinuousClock.now < busyUntil {}
            }
        }
        #expect(order == ["readable", "timer"])
    }

    @Test("hang-up is reported when the peer closes")
    func hangup() async throws {
        let loop = EventLoop(name: "t-hup")
        defer { loop.shutdown() }
        let (a, b) = try makeSocketPair()
        defer { close(a) }
        close(b)
        let ready = await withCheckedContinuation { (c: CheckedContinuation<IOInterest, Never>) in
            loop.execute {
                let box = Box<IORegistration?>(nil)
                box.value = loop.register(fd: a, interest: .none) { ready in
                    loop.deregister(box.value!)
                    c.resume(returning: ready)
                }
            }
        }
        #expect(ready.contains(.hangup))
    }

    @Test("deregistering another fd inside a handler suppresses its pending readiness")
    func deregisterInsideHandler() async throws {
        let loop = EventLoop(name: "t-dereg")
        defer { loop.shutdown() }
        let (a1, a2) = try makeSocketPair()
        let (b1, b2) = try makeSocketPair()
        defer { close(a1); close(a2); close(b1); close(b2) }
        var x: UInt8 = 1
        _ = write(a2, &x, 1)
        _ = write(b2, &x, 1)
        let calls = LockedValue(0)
        await loop.submit {
            // Both descriptors are readable before registration, so both are in the same
            // epoll batch; the first handler removes both. Level-triggered readiness would
            // call a surviving handler again on every iteration.
            let regs = Box<[IORegistration]>([])
            let handler: (IOInterest) -> Void = { _ in
                calls.withLock { $0 += 1 }
                for r in regs.value { loop.deregister(r) }
            }
            regs.value = [
                loop.register(fd: a1, interest: .readable, handler: handler),
                loop.register(fd: b1, interest: .readable, handler: handler),
            ]
        }
        // Let the loop iterate a few more times.
        for _ in 0..<5 { await loop.submit {} }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            loop.execute { loop.schedule(after: .milliseconds(5)) { c.resume() } }
        }
        #expect(calls.withLock { $0 } == 1)
        #expect(await loop.submit { loop.registrationCount } == 0)
    }

    @Test("a descriptor epoll refuses gets one .error call")
    func registerFailure() async {
        let loop = EventLoop(name: "t-badfd")
        defer { loop.shutdown() }
        let ready = await withCheckedContinuation { (c: CheckedContinuation<IOInterest, Never>) in
            loop.execute {
                let box = Box<IORegistration?>(nil)
                box.value = loop.register(fd: 987_654, interest: .readable) { ready in
                    loop.deregister(box.value!)
                    c.resume(returning: ready)
                }
            }
        }
        #expect(ready == .error)
    }

    @Test("shutdown of private loops leaves no thread and no descriptor behind")
    func noLeakAfterShutdown() async throws {
        let epollBefore = descriptorCount(target: "anon_inode:[eventpoll]")
        let eventfdBefore = descriptorCount(target: "anon_inode:[eventfd]")
        var loops: [EventLoop] = []
        for _ in 0..<200 {
            loops.append(EventLoop(name: "t-leak"))
        }
        let (a, b) = try makeSocketPair()
        defer { close(a); close(b) }
        for loop in loops {
            await loop.submit {
                loop.schedule(after: .seconds(3600)) {}
                _ = loop.register(fd: a, interest: .readable) { _ in }
            }
        }
        #expect(threadCount(named: "t-leak") == 200)
        #expect(descriptorCount(target: "anon_inode:[eventpoll]") >= 200)
        for loop in loops { loop.shutdown() }
        #expect(threadCount(named: "t-leak") == 0)
        // Other suites (and the runtime's own threads) open eventfds and epolls in
        // parallel: the slack is well below the 200 descriptors of each kind a leak leaves.
        #expect(descriptorCount(target: "anon_inode:[eventpoll]") < epollBefore + 100)
        #expect(descriptorCount(target: "anon_inode:[eventfd]") < eventfdBefore + 100)
        // A task after shutdown is discarded, not run.
        let ran = LockedValue(false)
        loops[0].execute { ran.withLock { $0 = true } }
        #expect(!ran.withLock { $0 })
    }

    @Test("the shared loop runs on a thread named realtime-io")
    func sharedLoop() async {
        let name = await EventLoop.shared.submit { () -> String in
            readFirstLine("/proc/thread-self/comm")
        }
        #expect(name == "realtime-io")
        #expect(EventLoop.shared === EventLoop.shared)
    }
}

/// A reference cell for loop-thread-only state captured by several closures.
final class Box<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

func makeSocketPair() throws -> (Int32, Int32) {
    var fds: [Int32] = [0, 0]
    let rc = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds)
    guard rc == 0 else { throw SocketPairError() }
    return (fds[0], fds[1])
}

struct SocketPairError: Error {}

/// Open descriptors of this process whose `/proc/self/fd` link reads `target`.
func descriptorCount(target: String) -> Int {
    guard let dir = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(dir) }
    var n = 0
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        var buf = [CChar](repeating: 0, count: 256)
        let len = readlink("/proc/self/fd/\(name)", &buf, 255)
        guard len > 0 else { continue }
        let link = String(decoding: buf[..<len].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if link == target { n += 1 }
    }
    return n
}

func threadCount(named prefix: String) -> Int {
    guard let dir = opendir("/proc/self/task") else { return -1 }
    defer { closedir(dir) }
    var n = 0
    while let entry = readdir(dir) {
        let tid = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        guard tid.first?.isNumber == true else { continue }
        if readFirstLine("/proc/self/task/\(tid)/comm").hasPrefix(prefix) { n += 1 }
    }
    return n
}

/// The first line of a small text file (no newline), or "" when unreadable.
func readFirstLine(_ path: String) -> String {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var buf = [UInt8](repeating: 0, count: 256)
    let n = read(fd, &buf, 256)
    guard n > 0 else { return "" }
    return String(decoding: buf[..<n].prefix { $0 != 10 }, as: UTF8.self)
}
#endif

#if os(Linux)
/// An event loop is a `TaskExecutor`: a task that prefers it
/// (`withTaskExecutorPreference(EventLoop.shared) { … }`) runs on the loop thread.
///
/// Why: a consumer that reads a stream on the cooperative pool is a third busy thread next to
/// the loop and the peer (on a 2-core machine: constant migrations, a futex wake-up per
/// batch, and data that crosses cores). On the loop, its `for await` gets each batch as soon
/// as the transport hands it over, with no thread hop. The price: while the task runs,
/// nothing else on the loop does, so it must not block and should stay short per event.
///
/// Jobs enqueued from the loop thread (the usual case: the transport resumed the consumer)
/// run before the loop next waits, without an eventfd round trip; others are queued like
/// `execute(_:)`. After ``shutdown()`` jobs go to the global concurrent executor, so a
/// task that still prefers the loop keeps running rather than hanging.
extension EventLoop: TaskExecutor {
    /// Runs `job` on the loop's thread (at once after the current work when called from it).
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if inEventLoop {
            state.readyJobs.append(job)
            return
        }
        if !enqueueUnlessStopped({ $0.jobs.append(job) }) {
            globalConcurrentExecutor.enqueue(job)
        }
    }

    /// Runs the jobs made ready so far (loop thread); jobs they make ready wait for the next
    /// pass, so a task that keeps yielding cannot starve I/O.
    func runReadyJobs() {
        guard !state.readyJobs.isEmpty else { return }
        var jobs: [UnownedJob] = []
        swap(&jobs, &state.readyJobs)
        let me = asUnownedTaskExecutor()
        for job in jobs { job.runSynchronously(on: me) }
        if state.readyJobs.isEmpty {
            // Keep the storage for the next batch.
            jobs.removeAll(keepingCapacity: true)
            swap(&jobs, &state.readyJobs)
        }
    }
}
#endif

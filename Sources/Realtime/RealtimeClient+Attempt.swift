#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Transport) import RealtimeCore

extension RealtimeClient {
    /// Prepares attempt `plan.attempt` (headers, URL, transport) and hands the transport to
    /// the machine; a failure before any transport exists is reported as the attempt's end.
    func prepare(_ plan: ClientStateMachine.ConnectPlan) async {
        var request = baseRequest(plan)
        do {
            try await applyHeadersProvider(to: &request, plan)
        } catch {
            if Task.isCancelled { return }
            let e = (error as? RealtimeError) ?? RealtimeError(.unauthorized, detail: "headers provider failed")
            return attemptFailedToStart(plan.attempt, e)
        }
        connect(plan, request)
    }

    /// Starts attempt `plan.attempt` at once, on the calling thread: without a headers
    /// provider nothing needs to wait, so the attempt starts when the machine decided it
    /// (a shared retry budget's admission holds for the attempt itself, not for a task
    /// scheduled later). Transports only queue work on their loop in `start()`, so this is
    /// safe on any thread, the I/O thread included.
    func connectNow(_ plan: ClientStateMachine.ConnectPlan) {
        connect(plan, baseRequest(plan))
    }

    private func connect(_ plan: ClientStateMachine.ConnectPlan, _ request: TransportRequest) {
        var request = request
        if let resumeURL = configuration.resumeURL {
            request.url = resumeURL(url, plan.cursor)
        }
        if plan.resumes, let resume = configuration.resume, let cursor = plan.cursor {
            guard let resumed = resume.request(request, cursor) else {
                let e = RealtimeError(.requestNotRepeatable, detail: "the resume plan cannot resume from the cursor")
                return attemptFailedToStart(plan.attempt, e)
            }
            request = resumed
            request.attempt = plan.attempt
        }
        guard Self.transportKind(for: request.url) == transportKind else {
            let what = configuration.resume == nil ? "resumeURL" : "the resume plan's request"
            return attemptFailedToStart(plan.attempt, RealtimeError(.invalidConfiguration, detail: "\(what) changed the transport's scheme"))
        }
        let transport: any Transport
        do {
            transport = try makeTransport(request)
        } catch {
            let e = (error as? RealtimeError) ?? RealtimeError(.internal, detail: "transport factory failed")
            return attemptFailedToStart(plan.attempt, e)
        }
        start(transport, attempt: plan.attempt, cursor: plan.cursor)
    }

    private func baseRequest(_ plan: ClientStateMachine.ConnectPlan) -> TransportRequest {
        var request = TransportRequest(url: url)
        request.method = configuration.method
        request.headers = configuration.headers
        request.body = configuration.body
        request.subprotocols = configuration.subprotocols
        request.tls = configuration.tls
        request.connectTimeout = configuration.connectTimeout
        request.responseTimeout = configuration.responseTimeout
        request.idleTimeout = configuration.idleTimeout
        request.maxRedirects = configuration.maxRedirects
        request.sensitiveHeaderNames = configuration.sensitiveHeaderNames
        request.allowsInsecureRedirects = configuration.allowsInsecureRedirects
        request.eventBufferCapacity = configuration.eventBufferCapacity
        // Packed batches skip the terminator's per-message check: with one, messages are whole.
        request.prefersMessageBatches =
            transportKind == .sse && storage.terminator == nil && configuration.resume?.cursor == nil
            && storage.deliversBatches.load(ordering: .relaxed)
        request.attempt = plan.attempt
        request.lastEventID = plan.cursor
        return request
    }

    /// The provider's headers replace same-named configured ones.
    private func applyHeadersProvider(to request: inout TransportRequest, _ plan: ClientStateMachine.ConnectPlan) async throws {
        guard let provider = configuration.headersProvider else { return }
        let fresh = try await provider(HeadersContext(attempt: plan.attempt, credentialsRejected: plan.credentialsRejected))
        for field in fresh.fields { request.headers.remove(name: field.name) }
        for field in fresh.fields { request.headers.add(name: field.name, value: field.value) }
    }

    private func attemptFailedToStart(_ attempt: Int, _ error: RealtimeError) {
        handle { machine, now in machine.attemptFailedToStart(attempt: attempt, error: error, now: now) }
    }

    /// Registers and starts the attempt's transport when the machine still wants it.
    /// Messages (and the `.open` before them) go from the transport's I/O thread straight to
    /// the consumer's buffer through the attempt's sink, with no hop through a task; so do its
    /// control events, to the machine.
    private func start(_ transport: any Transport, attempt: Int, cursor: String?) {
        let now = clock.now()
        let (wanted, work): (Bool, ClientStorage.Work) = storage.state.withLock { s in
            var work = ClientStorage.Work()
            let wanted: Bool
            switch s.machine.transportMade(attempt: attempt, now: now) {
            case .start(let effects):
                s.transport = (attempt, transport)
                s.absorb(effects, into: &work)
                wanted = true
            case .discard(let effects):
                s.absorb(effects, into: &work)
                wanted = false
            }
            s.conclude(&work)
            return (wanted, work)
        }
        if wanted {
            transport.start(delivering: AttemptSink(client: self, attempt: attempt, cursor: cursor))
        } else {
            transport.close()
        }
        perform(work)
    }
}

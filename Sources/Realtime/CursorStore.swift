/// Where the resume cursor (the SSE `Last-Event-ID` of the last *processed* event) lives
/// between runs of an app, so a restarted app resumes where it stopped.
///
/// ``load`` is called once, before the first connection, when
/// `Configuration.lastEventID` is nil. ``save`` is called, in order, each time the cursor
/// advances (when the consumer has processed an event); the consumer's next event waits
/// for it, so keep it quick (write to a file or `UserDefaults`, not to a remote service).
///
/// A `save` that throws is reported as an `.error` event with code `cursor_save_failed`
/// (`willRetry` true: the client goes on) and counted in
/// `RealtimeClient.Statistics.cursorSaveFailures`; the newest cursor is saved the next time
/// it advances (a processed event without a new id does not save again). The cursor in memory is not affected, so reconnects stay exact meanwhile.
public struct CursorStore: Sendable {
    /// Reads the saved cursor when the client starts; nil when none was saved.
    public var load: @Sendable () async -> String?
    /// Persists the cursor of the last processed event; a throw is reported as `cursor_save_failed` and the client goes on.
    public var save: @Sendable (String) async throws -> Void

    /// A store made of the two functions.
    public init(load: @escaping @Sendable () async -> String?, save: @escaping @Sendable (String) async throws -> Void) {
        self.load = load
        self.save = save
    }
}

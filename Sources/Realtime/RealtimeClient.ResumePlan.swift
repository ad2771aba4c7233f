extension RealtimeClient {
    /// How a stream resumes after a cut when its cursor is not (only) an SSE `id:`, or when the
    /// request that resumes it differs from the first one: a POST whose reply is resumed by a
    /// GET (the Responses API's `GET /v1/responses/{id}?stream=true&starting_after=N`, an MCP
    /// stream's GET with `Last-Event-ID`), a feed whose sequence number is in the data.
    ///
    /// **The cursor.** ``cursor`` reads it from each message, given the cursor before that
    /// message (so a cursor can combine what several messages carry: a reply's id from its
    /// first event and the sequence number of the last). Its result becomes the message's
    /// ``Message/id`` and, once the consumer has processed the message, the client's cursor
    /// (``RealtimeClient/lastEventID``, ``Configuration/cursorStore``), exactly as an SSE id
    /// (see <doc:ExactResume>). nil (default): the cursor is the message's SSE id, or what
    /// ``Configuration/messageID`` reads.
    ///
    /// **The resume.** Every attempt made with a cursor (after a cut, or the first one when a
    /// cursor was configured or loaded) sends ``request``'s request instead of the first
    /// one. A request that must not be repeated (a POST) is never repeated: without a cursor
    /// it is not resumed (the attempt's failure stands, as without a plan), and with one the
    /// resume request is sent instead; the reconnect policy, the backoff and the retry budget
    /// pace resumes as any reconnect. An attempt that moved the cursor made progress: like a
    /// stable connection, it starts a new streak (the next delay is the first one, and it
    /// spends none of ``ReconnectPolicy/maxAttempts``).
    ///
    /// **Finite streams.** With a ``Configuration/terminator``, a stream that ends (cleanly
    /// or not) before its terminator is resumed from its cursor instead of ending in
    /// `truncated`; after ``maxResumesWithoutProgress`` resumes in a row that bring no new
    /// cursor (a reply still queued on the server, say), the client stops with `truncated`.
    public struct ResumePlan: Sendable {
        /// Reads the cursor after `message`, given the `previous` one (nil before the first);
        /// nil leaves the cursor where it was. Called for every message on the transport's
        /// I/O thread, before delivery: keep it quick, never block. Default nil (the SSE id,
        /// or ``Configuration/messageID``).
        public var cursor: (@Sendable (_ message: Message, _ previous: String?) -> String?)?
        /// The request that resumes the stream after `cursor`, made from `request`, the
        /// request the attempt would otherwise send (the first one, with the headers
        /// provider's headers and `lastEventID` set to the cursor). Change what differs
        /// (method, URL, headers, body); the URL must keep the transport's scheme family. nil:
        /// this cursor cannot resume the stream (the attempt fails with
        /// `request_not_repeatable`, and the client stops).
        public var request: @Sendable (_ request: TransportRequest, _ cursor: String) -> TransportRequest?
        /// Resumes in a row of a finite stream that bring no new cursor before the client
        /// stops with `truncated`. Default 3; at least 1.
        public var maxResumesWithoutProgress: Int

        /// A plan that resumes with `request`, taking the cursor from `cursor` (or the message id when nil).
        public init(
            cursor: (@Sendable (_ message: Message, _ previous: String?) -> String?)? = nil,
            maxResumesWithoutProgress: Int = 3,
            request: @escaping @Sendable (_ request: TransportRequest, _ cursor: String) -> TransportRequest?
        ) {
            self.cursor = cursor
            self.maxResumesWithoutProgress = maxResumesWithoutProgress
            self.request = request
        }
    }
}

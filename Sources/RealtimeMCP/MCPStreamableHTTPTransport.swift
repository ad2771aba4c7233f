#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Transport) import Realtime
@_spi(Transport) import RealtimeCore

/// The Model Context Protocol's Streamable HTTP transport, client side: raw JSON-RPC
/// messages in and out of one MCP endpoint.
///
/// ``send(_:)`` POSTs one message (`Accept: application/json, text/event-stream`). The
/// answer is `202` (a notification or response was accepted), one JSON body, or an SSE
/// stream carrying notifications, server requests and finally the response; every message
/// comes out of ``receive()`` once. A request stream cut before its response is resumed with
/// GET and `Last-Event-ID` after the server's `retry:`, never by sending the request again;
/// when it cannot be resumed the request's response is a JSON-RPC error with code
/// ``transportErrorCode`` (see ``MCPClient`` for the typed error).
///
/// Handshake generation (2025-03-26 to 2025-11-25): the `Mcp-Session-Id` of the
/// `initialize` answer and the negotiated `MCP-Protocol-Version` go on every later request;
/// after `notifications/initialized` the server's GET stream is opened (405: none);
/// ``disconnect()`` ends the session with `DELETE`; a 404 means the session is gone.
/// Stateless generation (2026-07-28): every request carries the envelope in `params._meta`
/// and `Mcp-Method`/`Mcp-Name`; `notifications/cancelled` closes the request's stream.
///
/// The methods are those of swift-sdk's `Transport` protocol, so a swift-sdk `Client`
/// adopts this actor with an extension that adds its `logger`.
public actor MCPStreamableHTTPTransport {
    /// The JSON-RPC error code of a response the transport writes itself, for a request whose
    /// stream failed (its `data.transport` names the ``MCPError/Code``).
    public static let transportErrorCode = -32000

    /// The MCP endpoint (`https://host/mcp`); with HTTP+SSE, the URL of the server's stream.
    public let url: URL
    /// The settings the transport was made with.
    public let configuration: Configuration
    /// The session the server assigned (`Mcp-Session-Id`), handshake generation only.
    public internal(set) var sessionID: String?
    /// The revision in use: configured, or what the server answered to `initialize`.
    public internal(set) var revision: MCPRevision?
    /// Whether the server offers a GET stream (nil until tried; false after a 405).
    package internal(set) var hasServerStream: Bool?
    /// Where messages are POSTed when the server speaks the HTTP+SSE transport of
    /// 2024-11-05 (its stream's `endpoint` event); nil for Streamable HTTP.
    public internal(set) var legacyEndpoint: URL?
    var legacyStream: RealtimeClient?

    /// The server's messages, each parsed once, bounded (``MCPClient`` reads them from here).
    let inbound = MCPInboundQueue()
    var connected = false
    var streams: [Int: RequestStream] = [:]
    var nextStreamKey = 1
    var pendingInitialize: JSONValue?
    /// The server forgot the session (a 404 to a request that carried its id): nothing but
    /// a new `initialize` goes out until one is answered.
    package internal(set) var sessionLost = false
    var serverStream: RealtimeClient?
    var serverMachine = MCPStreamMachine(requestID: nil, maxResumes: 0)
    /// The errors behind the responses the transport wrote, newest last (bounded).
    var failures: [JSONValue: MCPError] = [:]
    /// The `Mcp-Param-*` arguments of each tool, from the last `tools/list` (2026-07-28).
    var parameterHeaders: [String: [MCPParameterHeader]] = [:]
    var failureOrder: [JSONValue] = []
    static let keptFailures = 256

    struct RequestStream {
        let client: RealtimeClient
        var machine: MCPStreamMachine
        let requestID: JSONValue?
        let isInitialize: Bool
        /// The session id the request carried (its resumptions carry it too).
        let session: String?
    }

    /// The clock of the transport's deadlines and of the clients it makes for its requests
    /// (``MCPClient`` keeps its request timeouts on it too).
    package nonisolated let clock: ClientClock
    /// Makes the client of one HTTP request, each attempt's transport through `gate` when given.
    let makeClient: @Sendable (URL, RealtimeClient.Configuration, MCPAttemptGate?) throws -> RealtimeClient

    /// A transport to the MCP endpoint at `url`. Nothing is sent before the first message.
    public init(url: URL, configuration: Configuration = Configuration()) {
        self.init(
            url: url, configuration: configuration, clock: ContinuousClock(),
            transportFactory: { RealtimeClient.defaultTransportFactory(configuration: $0) })
    }

    /// A transport whose requests' clients run on `clock` with the transports
    /// `transportFactory` makes for each request's configuration: how a test puts the MCP
    /// client on an embedded network, its timeouts on the network's loop.
    @_spi(Transport)
    public init<C: Clock>(
        url: URL, configuration: Configuration, clock: C,
        transportFactory: @escaping @Sendable (RealtimeClient.Configuration) -> RealtimeClient.TransportFactory
    ) where C.Duration == Duration {
        self.url = url
        self.configuration = configuration
        self.revision = configuration.revision
        self.clock = ClientClock(clock)
        self.makeClient = { url, configuration, gate in
            let made = transportFactory(configuration)
            let factory: RealtimeClient.TransportFactory
            if let gate {
                factory = { request in try made(gate.request(for: request)) }
            } else {
                factory = made
            }
            return try RealtimeClient(
                url: url, configuration: configuration, clock: clock, random: SystemRandomNumberGenerator(),
                transportFactory: factory)
        }
    }

    /// Checks the URL; the session itself starts with the first message (`initialize`).
    ///
    /// - Throws: ``MCPError`` `not_connected` once the transport ended for good (after
    ///   ``disconnect()``, or once an HTTP+SSE server's stream ended): ``receive()`` has
    ///   finished, so make a new transport.
    public func connect() async throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw MCPError(.transport, underlying: RealtimeError(.unsupportedScheme))
        }
        guard !inbound.isEnded else {
            throw MCPError(.notConnected, detail: "this transport ended (disconnected, or the server's HTTP+SSE stream ended): make a new one")
        }
        connected = true
    }

    /// Closes every stream, ends the session with `DELETE` (handshake generation) and
    /// finishes ``receive()``.
    public func disconnect() async {
        guard connected else { return }
        connected = false
        for stream in streams.values { stream.client.close() }
        streams.removeAll()
        serverStream?.close()
        serverStream = nil
        legacyStream?.close()
        legacyStream = nil
        if let sessionID {
            await deleteSession(sessionID)
        }
        sessionID = nil
        inbound.finish()
    }

    /// The messages from the server, in arrival order, each once.
    /// One consumer: ``MCPClient`` or a JSON-RPC layer of your own, not both. The transport
    /// reads ahead of it by at most 64 messages: beyond that the streams stop being read until
    /// the consumer catches up (nothing is dropped). Cancelling the consuming task ends it.
    public func receive() -> AsyncThrowingStream<Data, any Error> {
        let channel = inbound.channel
        return AsyncThrowingStream { await channel.next()?.data }
    }

    /// The revision to speak from now on (``MCPClient`` sets it after negotiating).
    package func use(revision: MCPRevision?) {
        self.revision = revision
    }

    /// Sends one JSON-RPC message. Returns once the server accepted it (`202`) or began its
    /// answer; throws ``MCPError`` when it refused it (HTTP status, wrong content type, gone
    /// session) or the message is not one JSON-RPC object.
    public func send(_ data: Data) async throws {
        guard connected else { throw MCPError(.notConnected) }
        let message = try MCPOutgoingMessage(data)
        let stateless = revision?.isStateless == true
        if stateless, let target = message.cancelledRequestID {
            // 2026-07-28: closing the request's stream is the cancellation.
            cancelStream(requestID: target)
            return
        }
        var body = data
        if stateless, message.kind == .request, let revision {
            body = message.withEnvelope(
                revision: revision, capabilities: configuration.clientCapabilities, clientInfo: configuration.clientInfo)
        }
        if message.method == "initialize" {
            pendingInitialize = message.id
        } else if sessionLost {
            throw MCPError(.sessionExpired, detail: "the server forgot the session; a new one starts with initialize (connect() again)")
        }
        try await post(Array(body), message: message)
        if message.method == "notifications/initialized", configuration.opensServerStream, !stateless, legacyEndpoint == nil {
            await openServerStream()
        }
    }

    /// The error behind the response the transport wrote for `requestID` (code
    /// ``transportErrorCode``), with its underlying ``RealtimeError``; the last 256 are kept.
    package func failure(for requestID: JSONValue) -> MCPError? { failures[requestID] }

    /// Stops waiting for `requestID`'s answer and closes its stream (cancellation, timeout).
    package func cancelStream(requestID: JSONValue) {
        guard let key = streams.first(where: { $0.value.requestID == requestID })?.key else { return }
        streams[key]?.machine.cancel()
        streams.removeValue(forKey: key)?.client.close()
    }

    // MARK: Headers

    /// Remembers which arguments of `tool` go into `Mcp-Param-*` headers (from `tools/list`).
    func useParameterHeaders(_ headers: [MCPParameterHeader], for tool: String) {
        parameterHeaders[tool] = headers.isEmpty ? nil : headers
    }

    func requestHeaders(for message: MCPOutgoingMessage?) -> HTTPHeaders {
        var headers = configuration.headers
        headers.replaceOrAdd(name: "Accept", value: "application/json, text/event-stream")
        headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        if let sessionID { headers.replaceOrAdd(name: "Mcp-Session-Id", value: sessionID) }
        if let revision, message?.method != "initialize", legacyEndpoint == nil {
            headers.replaceOrAdd(name: "MCP-Protocol-Version", value: revision.rawValue)
        }
        if revision?.isStateless == true, let message, message.kind == .request, let method = message.method {
            headers.replaceOrAdd(name: "Mcp-Method", value: method)
            if let name = message.name { headers.replaceOrAdd(name: "Mcp-Name", value: MCPHeaderValue.encode(name)) }
            if method == "tools/call", let name = message.name {
                let arguments = message.value["params"]?["arguments"]
                for header in parameterHeaders[name] ?? [] {
                    if let value = header.value(in: arguments) { headers.replaceOrAdd(name: "Mcp-Param-\(header.token)", value: value) }
                }
            }
        }
        return headers
    }

    func clientConfiguration(method: String, body: [UInt8]?, headers: HTTPHeaders, gate: MCPAttemptGate?)
        -> RealtimeClient.Configuration
    {
        var c = RealtimeClient.Configuration()
        c.method = method
        c.body = body
        c.headers = headers
        let provider = configuration.headersProvider
        c.headersProvider = { context in
            gate?.willAttempt(credentialsRejected: context.credentialsRejected)
            return try await provider?(context) ?? HTTPHeaders()
        }
        c.tls = configuration.tls
        c.connectTimeout = configuration.connectTimeout
        c.idleTimeout = configuration.idleTimeout
        c.backoff = configuration.backoff
        c.logHandler = configuration.logHandler
        #if os(Linux)
        c.eventLoop = configuration.eventLoop
        c.sse.jsonBodyLimit = configuration.maxMessageBytes
        c.sse.limits = SSEParser.Limits(maxEventSize: configuration.maxMessageBytes)
        #endif
        return c
    }
}

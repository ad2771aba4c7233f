// The umbrella: `import Realtime` brings every public type of the SDK.
@_spi(Transport) @_exported import RealtimeCore
@_spi(Transport) @_exported import RealtimeIO
@_spi(Transport) @_exported import RealtimeSSE
@_spi(Transport) @_exported import RealtimeWebSocket

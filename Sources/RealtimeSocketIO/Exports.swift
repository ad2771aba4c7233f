// `import RealtimeSocketIO` brings the client it connects through, as `import Realtime` would.
@_exported import Realtime

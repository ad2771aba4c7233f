/// What an app asks to hear about with ``MCPClient/listen(_:)``: list changes and updates
/// of resources (`SubscriptionFilter` of the 2026-07-28 revision).
public struct MCPSubscriptionFilter: Sendable, Hashable {
    /// `notifications/tools/list_changed`.
    public var toolsListChanged: Bool
    /// `notifications/prompts/list_changed`.
    public var promptsListChanged: Bool
    /// `notifications/resources/list_changed`.
    public var resourcesListChanged: Bool
    /// `notifications/resources/updated` for these URIs.
    public var resourceURIs: [String]

    /// A filter; every kind is off unless asked for.
    public init(
        toolsListChanged: Bool = false, promptsListChanged: Bool = false, resourcesListChanged: Bool = false,
        resourceURIs: [String] = []
    ) {
        self.toolsListChanged = toolsListChanged
        self.promptsListChanged = promptsListChanged
        self.resourcesListChanged = resourcesListChanged
        self.resourceURIs = resourceURIs
    }

    /// The filter on the wire (`{"toolsListChanged": true, "resourceSubscriptions": […]}`):
    /// kinds not asked for are left out.
    var json: JSONValue {
        var object: [String: JSONValue] = [:]
        if toolsListChanged { object["toolsListChanged"] = true }
        if promptsListChanged { object["promptsListChanged"] = true }
        if resourcesListChanged { object["resourcesListChanged"] = true }
        if !resourceURIs.isEmpty { object["resourceSubscriptions"] = .array(resourceURIs.map { .string($0) }) }
        return .object(object)
    }

    /// The filter the server acknowledged (anything not `true` is not honored).
    init(json: JSONValue?) {
        toolsListChanged = json?["toolsListChanged"] == .bool(true)
        promptsListChanged = json?["promptsListChanged"] == .bool(true)
        resourcesListChanged = json?["resourcesListChanged"] == .bool(true)
        resourceURIs = (json?["resourceSubscriptions"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    /// The change a notification announces, when this filter asked for it.
    func change(_ method: String, params: JSONValue?) -> MCPChange? {
        switch method {
        case "notifications/tools/list_changed": return toolsListChanged ? .toolsListChanged : nil
        case "notifications/prompts/list_changed": return promptsListChanged ? .promptsListChanged : nil
        case "notifications/resources/list_changed": return resourcesListChanged ? .resourcesListChanged : nil
        case "notifications/resources/updated":
            guard let uri = params?["uri"]?.stringValue, resourceURIs.contains(uri) else { return nil }
            return .resourceUpdated(uri: uri)
        default: return nil
        }
    }
}

/// One element of ``MCPClient/listen(_:)``. Every change is a level trigger ("this changed,
/// read it again if you care"), not the new state.
public enum MCPChange: Sendable, Hashable {
    /// The subscription is (again) in place, with what the server agreed to send. It comes
    /// first, and again after every re-listen: what changed while no stream was open is not
    /// told, so read again what you keep.
    case listening(honored: MCPSubscriptionFilter)
    /// The tool list changed (`notifications/tools/list_changed`).
    case toolsListChanged
    /// The prompt list changed (`notifications/prompts/list_changed`).
    case promptsListChanged
    /// The resource list changed (`notifications/resources/list_changed`).
    case resourcesListChanged
    /// The resource at `uri` changed (`notifications/resources/updated`).
    case resourceUpdated(uri: String)
}

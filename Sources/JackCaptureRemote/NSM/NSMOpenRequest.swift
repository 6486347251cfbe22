/// `/nsm/client/open s:path s:display_name s:client_id`: where the session manager wants this
/// client's project, and the name it is known by.
public struct NSMOpenRequest: Equatable, Sendable {
    /// The client's own storage: jcap uses it as the session's folder (file and takes).
    public var path: String
    /// For display only (the session's name in the manager).
    public var displayName: String
    /// Unique in the manager's session ("jcap.nABCD"): jcap's JACK client name.
    public var clientID: String

    public init(path: String, displayName: String, clientID: String) {
        self.path = path
        self.displayName = displayName
        self.clientID = clientID
    }

    /// The request in `message`, or nil when it is not an open with three strings.
    init?(_ message: OSCMessage) {
        guard message.path == NSMClient.Path.open, message.arguments.count >= 3,
              let path = message.arguments[0]?.stringValue, let displayName = message.arguments[1]?.stringValue,
              let clientID = message.arguments[2]?.stringValue else { return nil }
        self.init(path: path, displayName: displayName, clientID: clientID)
    }
}

/// An OSC message as received: its path, type tags, arguments (nil where the type is one jcap
/// does not read: blobs, MIDI, time tags) and the address it came from.
public struct OSCMessage: Equatable, Sendable {
    public var path: String
    public var typeTags: String
    public var arguments: [OSCArgument?]
    /// Where a reply goes (nil if liblo could not tell).
    public var sender: OSCAddress?

    public init(path: String, typeTags: String, arguments: [OSCArgument?], sender: OSCAddress?) {
        self.path = path
        self.typeTags = typeTags
        self.arguments = arguments
        self.sender = sender
    }
}

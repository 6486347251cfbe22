/// Why OSC could not start.
public enum OSCError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The UDP port is taken or not a port.
    case cannotListen(port: String)

    public var description: String {
        switch self {
        case .cannotListen(let port): return "cannot listen for OSC on UDP port \(port) (taken, or not a port number)"
        }
    }
}

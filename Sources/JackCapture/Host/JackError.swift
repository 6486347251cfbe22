/// What went wrong talking to the JACK server.
public enum JackError: Error, Equatable, Sendable {
    /// jack_client_open could not reach a server. `server` is the server name asked for, if any.
    case noServer(server: String?)
    /// jack_client_open failed for another reason, given as JACK's status bits.
    case clientOpenFailed(status: UInt32)
    /// jack_port_register failed.
    case portRegistrationFailed(name: String)
    /// jack_activate failed.
    case activationFailed
    /// jack_connect failed for a reason other than the connection already existing.
    case connectionFailed(source: String, destination: String)
    /// The client would have the server's own name: JACK 2 derives both socket paths from the
    /// name, so closing such a client deletes the server's socket and no client can connect again.
    case clientNamedLikeServer(String)
    /// jack_port_by_name found no port with this name or alias.
    case noSuchPort(String)
    /// jack_set_property failed (the metadata database could not be written).
    case propertyNotSet(key: String, subject: UInt64)
    /// jack_remove_property failed: the subject has no such property, or the database failed.
    case propertyNotRemoved(key: String, subject: UInt64)
}

extension JackError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .noServer(let server):
            let named = server.map { " named '\($0)'" } ?? ""
            return "no JACK server\(named) is running"
        case .clientOpenFailed(let status):
            return "the JACK server refused the client (status 0x\(String(status, radix: 16)))"
        case .portRegistrationFailed(let name):
            return "the JACK server refused to register port '\(name)' (port limit reached? raise it with jackd -p)"
        case .activationFailed:
            return "the JACK server refused to activate the client"
        case .connectionFailed(let source, let destination):
            return "could not connect JACK port '\(source)' to '\(destination)'"
        case .clientNamedLikeServer(let name):
            return "the client name '\(name)' is the server's name; JACK 2 would lose its server socket"
        case .noSuchPort(let name):
            return "no JACK port is named '\(name)'"
        case .propertyNotSet(let key, let subject):
            return "JACK could not set metadata '\(key)' on UUID \(subject)"
        case .propertyNotRemoved(let key, let subject):
            return "JACK could not remove metadata '\(key)' from UUID \(subject) (is it set?)"
        }
    }
}

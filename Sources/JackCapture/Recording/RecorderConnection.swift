/// The JACK side of a recorder.
public struct RecorderConnection: Sendable, Equatable {
    /// The client name asked for; the server makes it unique if taken.
    public var clientName: String
    /// The server (jackd -n), or nil for the default (or `$JACK_DEFAULT_SERVER`).
    public var serverName: String?
    /// Seconds of audio the ring holds: how long the disk may stall before frames are lost.
    public var bufferSeconds: Double

    public init(clientName: String = "jcap", serverName: String? = nil, bufferSeconds: Double = 4) {
        self.clientName = clientName
        self.serverName = serverName
        self.bufferSeconds = bufferSeconds
    }
}

/// When to read ports' connections again (jack_port_connected, a port at a time): when the
/// server has reported a connection made or broken (`JackHost.connectionChanges`), and every
/// `interval` besides, in case a report came before the ports were there to see it.
struct ConnectionLooks {
    /// Nanoseconds between looks when no change is reported.
    let interval: UInt64
    private var changesSeen: Int?
    private var nextLook: UInt64 = 0

    init(interval: UInt64) {
        self.interval = interval
    }

    /// Whether to look now, given the server's count of connection changes and the time in
    /// nanoseconds; if so, the next look is due an interval later.
    mutating func isDue(connectionChanges: Int, now: UInt64) -> Bool {
        guard connectionChanges != changesSeen || now >= nextLook else { return false }
        changesSeen = connectionChanges
        nextLook = now + interval
        return true
    }
}

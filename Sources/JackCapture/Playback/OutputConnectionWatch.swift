/// Which of a player's output ports lost its last connection. It looks when the server reports a
/// connection made or broken (`JackHost.connectionChanges`), and every tenth of a second besides.
/// It runs on the player's butler, which the host stops and joins before the client closes:
/// jack_port_connected on a closed client crashes libjack.
struct OutputConnectionWatch {
    private var connected: [Bool] = []
    private var looks = ConnectionLooks(interval: 100_000_000)

    /// Whether to look now (`ConnectionLooks`: on a reported change, and every tenth of a second).
    mutating func isDue(connectionChanges: Int, now: UInt64) -> Bool {
        looks.isDue(connectionChanges: connectionChanges, now: now)
    }

    /// Takes in whether each output is connected now; returns the outputs that were connected at
    /// the last look and are not now. An output seen for the first time lost nothing.
    mutating func lostConnections(now: [Bool]) -> [Int] {
        var lost: [Int] = []
        for (index, isConnected) in now.enumerated() {
            if index < connected.count {
                if connected[index] && !isConnected { lost.append(index) }
                connected[index] = isConnected
            } else {
                connected.append(isConnected)
            }
        }
        return lost
    }
}

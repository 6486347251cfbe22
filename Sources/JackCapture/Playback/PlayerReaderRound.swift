import Foundation

/// One round of a player's butler: read what the rings have room for, then report what
/// happened (underruns, decode errors, outputs that lost their connection, the server's changes,
/// the end) to the player's delegate, on this thread.
final class PlayerReaderRound: @unchecked Sendable {
    // @unchecked: its vars are used only on the player's butler thread.
    private let state: PlayerStatePointer
    private let reading: PlaybackReaderLoop
    private let host: JackHost
    private let butler: Butler
    private var connectionWatch = OutputConnectionWatch()
    private var sampleRateChangesSeen = 0
    private var bufferSizeChangesSeen = 0

    init(state: PlayerStatePointer, reading: PlaybackReaderLoop, host: JackHost, butler: Butler) {
        self.state = state
        self.reading = reading
        self.host = host
        self.butler = butler
    }

    func run(for player: Player) -> Butler.Round {
        let outcome = reading.fill(state.pointee)
        player.reportUnderruns(state)
        // The callback tells the frame within a cycle: the timed wait is a fraction of one.
        if outcome == .awaitingResume { return .idle }
        player.reportDecodeErrors(reading)
        watchConnections(player)
        reportServerChanges(player)
        player.checkFinished(state, reading: reading)
        return outcome == .filled ? .again : .idle
    }

    private func watchConnections(_ player: Player) {
        guard connectionWatch.isDue(connectionChanges: host.connectionChanges, now: DispatchTime.now().uptimeNanoseconds)
        else { return }
        let ports = state.pointee.ports
        let connected = (0..<state.pointee.portCount).map { host.client.connectionCount(of: ports[$0]) > 0 }
        for index in connectionWatch.lostConnections(now: connected) {
            let name = player.control.withLock { index < $0.portNames.count ? $0.portNames[index] : "out_\(index + 1)" }
            player.interrupt(.outputDisconnected(name))
        }
    }

    /// A new sample rate or period, as the host's notifications counted them.
    private func reportServerChanges(_ player: Player) {
        let (rate, rateChanges) = host.notifiedSampleRate
        if rateChanges != sampleRateChangesSeen {
            sampleRateChangesSeen = rateChanges
            player.interrupt(.sampleRateChanged(rate))
        }
        let (frames, sizeChanges) = host.notifiedBufferSize
        if sizeChanges != bufferSizeChangesSeen {
            bufferSizeChangesSeen = sizeChanges
            butler.setIdleWait(Butler.idleWait(periodFrames: frames, sampleRate: rate))
            player.interrupt(.bufferSizeChanged(frames))
        }
    }
}

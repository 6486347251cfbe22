import JackCapture

extension MeterSnapshot {
    /// What `jcap play` shows: the player's state, the file frame playing, what is left of the
    /// files, how full the reader's rings are, the server's xruns and the frames of silence
    /// underruns played, and each output port's meter (`updateMeters()` must have been called).
    /// `paused`: paused by a key; `startFrame`: the JACK frame an `--at` start waits for.
    init(player: Player, names: [String], paused: Bool, startFrame: UInt32?) {
        let rate = player.fileSampleRate
        let position = player.currentFrame
        let state: State
        switch player.phase {
        case .playing: state = .playing
        case .waiting:
            let frames = startFrame.map { Int64(max(0, FrameTime.distance(from: player.estimatedFrameTime, to: $0))) } ?? 0
            state = .countdown(frames: frames)
        case .idle: state = paused ? .paused : player.isPlaying ? .countdown(frames: 0) : .finished
        }
        self.init(state: state, sampleRate: rate, elapsedFrames: position,
                  remainingFrames: max(0, player.durationFrames - position), bufferFill: player.bufferFill,
                  xruns: Int64(player.xruns), lostFrames: Int64(player.underrunFrames),
                  channels: names.indices.map {
                      Channel(name: names[$0], reading: player.isMeteringEnabled ? player.meterReading(forChannel: $0) : .silent)
                  })
    }
}

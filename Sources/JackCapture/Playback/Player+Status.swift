import Foundation

/// What happened: the callback's phase and counters, the reader's reports, the client's clock.
extension Player {
    /// Where the callback is.
    public var phase: PlaybackPhase {
        control.withLock { $0.state.flatMap { PlaybackPhase(rawValue: $0.pointee.phase.load(ordering: .relaxed)) } ?? .idle }
    }

    /// The JACK frame the last start played its first frame on.
    public var startedFrame: UInt32? {
        control.withLock {
            guard let frame = $0.state?.pointee.startedFrame.load(ordering: .relaxed), frame >= 0 else { return nil }
            return UInt32(frame)
        }
    }

    /// Frames the last start came late (its frame had passed before the callback saw it).
    public var lateStartFrames: Int {
        control.withLock { Int($0.state?.pointee.lateStartFrames.load(ordering: .relaxed) ?? 0) }
    }

    /// Frames of silence played because the reader fell behind.
    public var underrunFrames: Int {
        control.withLock { $0.state?.pointee.underrunFrames.load(ordering: .relaxed) ?? 0 }
    }

    /// Xruns the server reported since the player was prepared.
    public var xruns: Int { control.withLock { $0.state?.pointee.xruns.load(ordering: .relaxed) ?? 0 } }

    /// How full the reader keeps the rings: the emptiest file's ring, 0 ... 1 (1 before the
    /// player is prepared would claim audio there is none: 0).
    public var bufferFill: Double {
        control.withLock {
            guard let state = $0.state else { return 0 }
            var lowest = 1.0
            for index in 0..<state.pointee.sourceCount {
                let ring = state.pointee.sources[index].ring
                lowest = min(lowest, Double(ring.readableByteCount()) / Double(max(1, ring.capacity)))
            }
            return lowest
        }
    }

    /// Each file that stopped decoding (`.decodeFailed`), as the delegate was told.
    public var decodeErrors: [PlayerError] { control.withLock { $0.recordedDecodeErrors } }

    /// Each interruption, as the delegate was told.
    public var interruptions: [PlayerInterruption] { control.withLock { $0.recordedInterruptions } }

    /// Each underrun, once it has ended.
    public var underruns: [PlaybackUnderrun] { control.withLock { $0.recordedUnderruns } }

    /// The name the server gave the client, once prepared.
    public var clientName: String? { control.withLock { $0.host }?.client.name }

    /// JACK's frame time now, estimated (jack_frame_time); 0 before `prepareToPlay`.
    public var estimatedFrameTime: UInt32 { control.withLock { $0.host }?.client.estimatedFrameTime ?? 0 }

    /// The process thread (for the allocation tests).
    package var processThread: pthread_t? { control.withLock { $0.host }?.client.processThread }

    /// The host (for tests that drive its notifications).
    var host: JackHost? { control.withLock { $0.host } }

    /// Test hook: the reader sleeps this long after each block it reads, so it falls behind.
    package var readerDelayMicroseconds: Int {
        get { control.withLock { $0.state?.pointee.readerDelayMicroseconds.load(ordering: .relaxed) ?? 0 } }
        set { control.withLock { $0.state?.pointee.readerDelayMicroseconds.store(newValue, ordering: .relaxed) } }
    }
}

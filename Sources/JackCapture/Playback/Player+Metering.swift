/// Metering, as AVAudioPlayer has it (channels are the output ports, 0-based).
extension Player {
    /// Whether the process callback measures what each port plays (after volume and pan), with
    /// the recorder's meters' scale and ballistics. Off by default, as in AVAudioPlayer.
    public var isMeteringEnabled: Bool {
        get { control.withLock { $0.metering } }
        set {
            control.withLock {
                $0.metering = newValue
                $0.state?.pointee.meteringEnabled.store(newValue, ordering: .relaxed)
            }
        }
    }

    /// Takes in what was measured since the last call (AVAudioPlayer's `updateMeters`).
    public func updateMeters() {
        control.withLock { $0.channelMeters?.update() }
    }

    /// The average power of output port `channel` in dBFS, -160 (silence) to 0, as of the last
    /// `updateMeters()`; -160 before the player is prepared.
    public func averagePower(forChannel channel: Int) -> Float {
        control.withLock { $0.channelMeters.map { $0.averagePower(forChannel: channel) } ?? -160 }
    }

    /// The peak power of output port `channel` in dBFS, as `averagePower(forChannel:)`.
    public func peakPower(forChannel channel: Int) -> Float {
        control.withLock { $0.channelMeters.map { $0.peakPower(forChannel: channel) } ?? -160 }
    }

    /// Each output port's reading (average, peak, hold, highest peak, clips) for a display.
    public func meterReading(forChannel channel: Int) -> MeterReading {
        control.withLock { $0.channelMeters?.reading(forChannel: channel) } ?? .silent
    }
}

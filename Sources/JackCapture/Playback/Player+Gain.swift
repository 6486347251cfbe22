/// Volume and pan.
extension Player {
    /// 0 (silent) ... 1 (the file as it is), clamped; NaN is ignored. Changed while playing, the gain moves in a
    /// straight line over `rampSeconds` (no click, no zipper noise).
    public var volume: Float {
        get { control.withLock { $0.gain.volume } }
        set {
            // NaN is no gain: ignored (it would play as NaN samples).
            guard !newValue.isNaN else { return }
            setGain(volume: min(max(newValue, 0), 1), pan: nil)
        }
    }

    /// -1 (left) ... 1 (right), clamped (NaN ignored): equal power for a mono file spread to two ports
    /// (`spreadsMonoToStereo`), balance for a stereo file, no effect on other layouts.
    public var pan: Float {
        get { control.withLock { $0.gain.pan } }
        set {
            guard !newValue.isNaN else { return }
            setGain(volume: nil, pan: min(max(newValue, -1), 1))
        }
    }

    /// How long a volume or pan change takes: 10 ms.
    public static let rampSeconds = 0.01

    static func rampFrames(sampleRate: Int) -> Int { Int((rampSeconds * Double(sampleRate)).rounded()) }

    func setGain(volume: Float?, pan: Float?) {
        control.withLock {
            if let volume { $0.gain.volume = volume }
            if let pan { $0.gain.pan = pan }
            if let state = $0.state { Player.storeGains(in: state, volume: $0.gain.volume, pan: $0.gain.pan) }
        }
    }

    /// Every port's target gain for `volume` and `pan` (`PanLaw`), for the callback to ramp to.
    static func storeGains(in state: PlayerStatePointer, volume: Float, pan: Float) {
        for index in 0..<state.pointee.sourceCount {
            let source = state.pointee.sources[index]
            for port in 0..<source.portCount {
                let gain = PanLaw.gain(volume: volume, pan: pan, channels: source.channels, ports: source.portCount, port: port)
                state.pointee.targetGains[source.firstPort + port].store(gain.bitPattern, ordering: .relaxed)
            }
        }
    }
}

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
            if let state = $0.state { Player.storeGains(in: state, volume: $0.gain.volume, pan: $0.gain.pan, mix: $0.mix) }
        }
    }

    // MARK: The monitor mix

    /// The stereo monitor mix the player plays (`prepareToPlay(mix:)`), with its solos and mutes
    /// as they are now; nil when each file plays on ports of its own.
    public var mix: PlaybackMix? { control.withLock { $0.mix } }

    /// Mutes or unmutes file `index` in the mix (ramped, no click). Without a mix, or for a file
    /// the player lacks, nothing happens.
    public func setMuted(_ muted: Bool, file index: Int) {
        changeMix { mix in
            if muted { mix.muted.insert(index) } else { mix.muted.remove(index) }
        }
    }

    /// Solos or unsolos file `index` in the mix: while any file is soloed, only soloed files sound.
    public func setSoloed(_ soloed: Bool, file index: Int) {
        changeMix { mix in
            if soloed { mix.soloed.insert(index) } else { mix.soloed.remove(index) }
        }
    }

    /// What a mute or solo key does (`jcap play --mix`, an overdub's `--mix`): toggles track
    /// `track` (1-based: the mix's file `track - 1`); a number past the mix's files does nothing.
    /// False when the player has no mix to mute or solo in.
    package func toggleInMix(track: Int, solo: Bool) -> Bool {
        guard let mix else { return false }
        let file = track - 1
        guard mix.pans.indices.contains(file) else { return true }
        if solo { setSoloed(!mix.soloed.contains(file), file: file) } else { setMuted(!mix.muted.contains(file), file: file) }
        return true
    }

    private func changeMix(_ change: (inout PlaybackMix) -> Void) {
        control.withLock {
            guard var mix = $0.mix else { return }
            let files = mix.pans.count
            change(&mix)
            mix.muted = mix.muted.filter { (0..<files).contains($0) }
            mix.soloed = mix.soloed.filter { (0..<files).contains($0) }
            $0.mix = mix
            if let state = $0.state { Player.storeGains(in: state, volume: $0.gain.volume, pan: $0.gain.pan, mix: mix) }
        }
    }

    /// Every gain's target for `volume` and `pan` (`PanLaw`), or in a mix each file's left and
    /// right gains (`PlaybackMix`; the player's pan does not apply), for the callback to ramp to.
    static func storeGains(in state: PlayerStatePointer, volume: Float, pan: Float, mix: PlaybackMix? = nil) {
        for index in 0..<state.pointee.sourceCount {
            let source = state.pointee.sources[index]
            if let mix {
                for output in 0..<2 {
                    let gain = mix.gain(file: index, channels: source.channels, output: output, volume: volume)
                    state.pointee.targetGains[source.firstGain + output].store(gain.bitPattern, ordering: .relaxed)
                }
                continue
            }
            for port in 0..<source.portCount {
                let gain = PanLaw.gain(volume: volume, pan: pan, channels: source.channels, ports: source.portCount, port: port)
                state.pointee.targetGains[source.firstPort + port].store(gain.bitPattern, ordering: .relaxed)
            }
        }
    }
}

/// A stereo monitor mix of a player's files: every file (a session take's track, or its group)
/// is panned onto one pair of ports, `mix_L` and `mix_R`, with solo and mute per file.
///
/// - A mono file is panned with equal power (`PanLaw`: -3.01 dB each side in the centre).
/// - A two-channel file keeps its left and right, `pan` its balance.
/// - A file of more channels sends its odd channels (1, 3, ...) left and its even ones right,
///   `pan` its balance, as a stereo file's.
///
/// A muted file is silent; while any file is soloed, only soloed files that are not muted sound.
public struct PlaybackMix: Equatable, Sendable {
    /// Each file's position, -1 (left) ... 1 (right), in the player's file order.
    public var pans: [Float]
    public var muted: Set<Int> = []
    public var soloed: Set<Int> = []

    /// The mix's two ports.
    public static let portNames = ["mix_L", "mix_R"]

    public init(pans: [Float]) {
        self.pans = pans.map { $0.isNaN ? 0 : min(max($0, -1), 1) }
    }

    /// Whether file `index` is heard now (solo and mute).
    public func isAudible(_ index: Int) -> Bool {
        guard !muted.contains(index) else { return false }
        return soloed.isEmpty || soloed.contains(index)
    }

    /// The gain of file `index` (of `channels` channels) on mix port `output` (0 left, 1 right).
    func gain(file index: Int, channels: Int, output: Int, volume: Float) -> Float {
        guard isAudible(index) else { return 0 }
        let pan = index < pans.count ? pans[index] : 0
        return PanLaw.gain(volume: volume, pan: pan, channels: min(channels, 2), ports: 2, port: output)
    }
}

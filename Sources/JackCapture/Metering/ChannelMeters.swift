import Atomics
import Foundation

/// One channel's meter, in dBFS: 0 at full scale, -160 for silence, above 0 beyond full scale.
public struct MeterReading: Equatable, Sendable {
    /// RMS level, integrated over `ChannelMeters.averagingTime`.
    public var averagePower: Float
    /// Sample peak with a fall-back of `ChannelMeters.peakReleaseRate` dB per second.
    public var peakPower: Float
    /// The highest peak of the last `ChannelMeters.peakHoldTime` seconds.
    public var peakHold: Float
    /// The highest peak of the take so far.
    public var highestPeak: Float
    /// Samples of the take at or beyond full scale; the clip indicator latches on the first.
    public var clipCount: Int64

    public var isClipped: Bool { clipCount > 0 }

    public init(averagePower: Float, peakPower: Float, peakHold: Float, highestPeak: Float, clipCount: Int64) {
        self.averagePower = averagePower
        self.peakPower = peakPower
        self.peakHold = peakHold
        self.highestPeak = highestPeak
        self.clipCount = clipCount
    }

    public static let silent = MeterReading(averagePower: ChannelMeters.floor, peakPower: ChannelMeters.floor,
                                            peakHold: ChannelMeters.floor, highestPeak: ChannelMeters.floor,
                                            clipCount: 0)
}

/// Meters for every channel of a capture engine, computed off the real-time thread from what the
/// process callback accumulates (`MeterAccumulators`). Call `update()` 10 to 30 times a second.
///
/// The ballistics are those of a digital studio meter (IEC 60268-18, as in x42's meters and
/// jkmeter): the peak meter reads true sample peaks with instant attack and falls back at 20 dB
/// in 1.7 s, so short transients stay visible; the peak hold keeps the highest peak for 2 s; the
/// average meter is RMS through a first-order integrator with a 300 ms time constant, the
/// integration time of a VU meter, so it follows loudness rather than transients. A full-scale
/// sine reads 0 dBFS peak and -3.01 dBFS average (RMS without the AES-17 +3 dB offset, as
/// AVAudioRecorder reports it). Time is counted in audio frames, not wall-clock time, so the
/// meters move the same however often they are read.
///
/// Thread-safe: `update()` and every read take one mutex, so UI threads and a recorder's event
/// thread may share a meter. The real-time callback never touches it (it only writes the
/// accumulators' atomics). A channel out of range reads as silence (`floor`, `MeterReading.silent`,
/// no clips), as AVAudioRecorder reads it.
package final class ChannelMeters: Sendable {
    package static let floor: Float = -160
    package static let averagingTime = 0.3
    package static let peakReleaseRate = 20.0 / 1.7
    package static let peakHoldTime = 2.0

    let accumulators: MeterAccumulators
    let sampleRate: Double
    private let state: Locked<State>

    /// The ballistics' memory, per channel, as of the last update.
    private struct State {
        var lastFrames: Int64 = 0
        var lastSums: [Double]
        /// The running sums as last read (kept, so an update allocates nothing).
        var sums: [Double]
        var meanSquares: [Double]
        var peaks: [Double]
        var holds: [Double]
        var holdAges: [Double]
        /// Each channel's loudest sample between the last two updates.
        var recentPeaks: [Double]
        var midUpdate: (@Sendable () -> Void)?

        init(channelCount count: Int) {
            lastSums = [Double](repeating: 0, count: count)
            sums = lastSums
            meanSquares = lastSums
            peaks = lastSums
            holds = lastSums
            holdAges = lastSums
            recentPeaks = lastSums
        }
    }

    /// Runs inside `update()`, with the mutex held, after the first channel is updated: how tests
    /// catch a read that does not wait for an update to finish.
    var midUpdate: (@Sendable () -> Void)? {
        get { state.withLock { $0.midUpdate } }
        set { state.withLock { $0.midUpdate = newValue } }
    }

    init(accumulators: MeterAccumulators, sampleRate: Int) {
        self.accumulators = accumulators
        self.sampleRate = Double(sampleRate)
        state = Locked(State(channelCount: accumulators.channelCount))
    }

    package var channelCount: Int { accumulators.channelCount }

    /// Takes in everything measured since the last update and moves the meters on.
    package func update() {
        state.withLock { update(&$0) }
    }

    private func update(_ state: inout State) {
        // The sums and the frames of the same cycles: a sum a cycle ahead of the frame count would
        // read that cycle's power as this window's (a busy machine's meters read hot).
        let frames = accumulators.totals(into: &state.sums)
        let newFrames = frames - state.lastFrames
        guard newFrames > 0 else { return }
        state.lastFrames = frames
        let seconds = Double(newFrames) / sampleRate
        let averaging = 1 - exp(-seconds / Self.averagingTime)
        let release = pow(10, -Self.peakReleaseRate * seconds / 20)
        for channel in 0..<channelCount {
            let sum = state.sums[channel]
            let meanSquare = max(0, sum - state.lastSums[channel]) / Double(newFrames)
            state.lastSums[channel] = sum
            state.meanSquares[channel] += averaging * (meanSquare - state.meanSquares[channel])

            let windowPeak = Double(Float(bitPattern: UnsafeAtomic<UInt32>(at: accumulators.windowPeaks + channel)
                .exchange(0, ordering: .relaxed)))
            state.recentPeaks[channel] = windowPeak
            state.peaks[channel] = max(windowPeak, state.peaks[channel] * release)
            state.holdAges[channel] += seconds
            if windowPeak >= state.holds[channel] || state.holdAges[channel] > Self.peakHoldTime {
                state.holds[channel] = windowPeak
                state.holdAges[channel] = 0
            }
            if channel == 0 { state.midUpdate?() }
        }
    }

    private func contains(_ channel: Int) -> Bool { channel >= 0 && channel < channelCount }

    /// RMS level of a channel (0-based) in dBFS.
    package func averagePower(forChannel channel: Int) -> Float {
        guard contains(channel) else { return Self.floor }
        return state.withLock { Self.decibels(power: $0.meanSquares[channel]) }
    }

    /// Peak level of a channel (0-based) in dBFS.
    package func peakPower(forChannel channel: Int) -> Float {
        guard contains(channel) else { return Self.floor }
        return state.withLock { Self.decibels(amplitude: $0.peaks[channel]) }
    }

    /// Everything the meter shows for a channel, read at one moment (between updates).
    package func reading(forChannel channel: Int) -> MeterReading {
        guard contains(channel) else { return .silent }
        return state.withLock { reading(forChannel: channel, in: $0) }
    }

    /// Every channel's reading, read at one moment: one lock for them all (a session's state,
    /// 20 times a second, reads a thousand).
    package func readings() -> [MeterReading] {
        state.withLock { state in (0..<channelCount).map { reading(forChannel: $0, in: state) } }
    }

    private func reading(forChannel channel: Int, in state: State) -> MeterReading {
        MeterReading(averagePower: Self.decibels(power: state.meanSquares[channel]),
                     peakPower: Self.decibels(amplitude: state.peaks[channel]),
                     peakHold: Self.decibels(amplitude: state.holds[channel]),
                     highestPeak: highestPeak(forChannel: channel), clipCount: clipCount(forChannel: channel))
    }

    /// Frames metered up to the last update: `recentPeak` is news when it has grown.
    package var meteredFrames: Int64 { state.withLock { $0.lastFrames } }

    /// The loudest sample between the last two updates, in dBFS, without the peak meter's
    /// release: silence reads as silence at once.
    package func recentPeak(forChannel channel: Int) -> Float {
        guard contains(channel) else { return Self.floor }
        return state.withLock { Self.decibels(amplitude: $0.recentPeaks[channel]) }
    }

    /// Every channel's `recentPeak`, under one lock.
    package func recentPeaks() -> [Float] {
        state.withLock { $0.recentPeaks.map { Self.decibels(amplitude: $0) } }
    }

    /// The highest peak of the take so far, in dBFS.
    package func highestPeak(forChannel channel: Int) -> Float {
        guard contains(channel) else { return Self.floor }
        return Self.decibels(amplitude: Double(Float(bitPattern: UnsafeAtomic<UInt32>(at: accumulators.takePeaks + channel)
            .load(ordering: .relaxed))))
    }

    /// Samples of the take at or beyond full scale.
    package func clipCount(forChannel channel: Int) -> Int64 {
        guard contains(channel) else { return 0 }
        return UnsafeAtomic<Int64>(at: accumulators.clipCounts + channel).load(ordering: .relaxed)
    }

    /// 20 log10(amplitude), never below -160.
    package static func decibels(amplitude: Double) -> Float {
        guard amplitude > 0 else { return floor }
        return Swift.max(floor, Float(20 * log10(amplitude)))
    }

    /// 10 log10(power), never below -160.
    package static func decibels(power: Double) -> Float {
        guard power > 0 else { return floor }
        return Swift.max(floor, Float(10 * log10(power)))
    }
}

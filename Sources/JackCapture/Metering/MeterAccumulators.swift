import Atomics
import CSimd
import Glibc

/// What the meters gather: per channel, per cycle, the peak absolute sample and the sum of squares
/// (the process callback, from every cycle), and over the take, the highest peak and the samples
/// at or beyond full scale (the take's disk writer, from exactly the frames it writes, so they
/// begin and end on the take's exact frames). Everything is published through atomics;
/// ballistics, averaging and decibels are computed by `ChannelMeters` off the real-time thread.
///
/// Peaks are stored as the bit patterns of non-negative floats, which order like the floats
/// themselves, so a running maximum is an integer compare-and-exchange.
package struct MeterAccumulators: @unchecked Sendable {
    let channelCount: Int
    /// Highest |sample| since the reader last took it (exchanged with 0 by the reader).
    let windowPeaks: UnsafeMutablePointer<UnsafeAtomic<UInt32>.Storage>
    /// Running sum of squares since metering began, as Double bits (only the callback writes it).
    let sumsOfSquares: UnsafeMutablePointer<UnsafeAtomic<UInt64>.Storage>
    /// Highest |sample| recorded in the take.
    let takePeaks: UnsafeMutablePointer<UnsafeAtomic<UInt32>.Storage>
    /// Samples recorded in the take at or beyond full scale.
    let clipCounts: UnsafeMutablePointer<UnsafeAtomic<Int64>.Storage>
    /// Frames per channel measured since metering began (published after the sums).
    let meteredFrames: UnsafeAtomic<Int64>
    /// Odd while the callback adds a cycle to the sums and frames: a sequence lock that the reader
    /// retries on and the callback never waits for, so that the sums and the frames read between
    /// two equal even values cover the same cycles (`totals(into:)`).
    let cycleSequence: UnsafeAtomic<Int64>
    /// The processor runs `jcap_copy_levels_avx2` (asked here: the callback may not run a lazy
    /// global's first access).
    let copiesInAVX2: Bool

    init(channelCount: Int) {
        self.channelCount = channelCount
        copiesInAVX2 = jcap_has_avx2() != 0
        windowPeaks = .allocate(capacity: channelCount)
        sumsOfSquares = .allocate(capacity: channelCount)
        takePeaks = .allocate(capacity: channelCount)
        clipCounts = .allocate(capacity: channelCount)
        for channel in 0..<channelCount {
            (windowPeaks + channel).initialize(to: .init(0))
            (sumsOfSquares + channel).initialize(to: .init(0))
            (takePeaks + channel).initialize(to: .init(0))
            (clipCounts + channel).initialize(to: .init(0))
        }
        meteredFrames = .create(0)
        cycleSequence = .create(0)
    }

    func deallocate() {
        windowPeaks.deallocate()
        sumsOfSquares.deallocate()
        takePeaks.deallocate()
        clipCounts.deallocate()
        meteredFrames.destroy()
        cycleSequence.destroy()
    }

    /// One cycle of one channel, for the live meter.
    @_noAllocation @_noLocks
    func measure(channel: Int, samples: UnsafePointer<Float>, count: Int) {
        publish(channel: channel, Self.measure(samples, from: 0, to: count))
    }

    /// What one cycle of one channel measured, for the live meter: its peak raises the window's,
    /// its sum of squares adds to the running total.
    @_noAllocation @_noLocks
    func publish(channel: Int, _ cycle: Measurement) {
        var current = UnsafeAtomic<UInt32>(at: windowPeaks + channel).load(ordering: .relaxed)
        while cycle.peak.bitPattern > current {
            let (exchanged, original) = UnsafeAtomic<UInt32>(at: windowPeaks + channel)
                .weakCompareExchange(expected: current, desired: cycle.peak.bitPattern, ordering: .relaxed)
            if exchanged { break }
            current = original
        }
        let sums = UnsafeAtomic<UInt64>(at: sumsOfSquares + channel)
        let total = Double(bitPattern: sums.load(ordering: .relaxed)) + Double(cycle.sumOfSquares)
        sums.store(total.bitPattern, ordering: .relaxed)
    }

    /// What the take's writer measured of one channel's frames as they went into the take (its
    /// only caller): the highest |sample| and the samples at or beyond full scale.
    func recordTake(channel: Int, peak: Float, clips: Int) {
        guard channel >= 0, channel < channelCount else { return }
        let takePeak = UnsafeAtomic<UInt32>(at: takePeaks + channel)
        if peak.bitPattern > takePeak.load(ordering: .relaxed) {
            takePeak.store(peak.bitPattern, ordering: .relaxed)
        }
        if clips > 0 {
            let counts = UnsafeAtomic<Int64>(at: clipCounts + channel)
            counts.store(counts.load(ordering: .relaxed) + Int64(clips), ordering: .relaxed)
        }
    }

    /// Clears the take's highest peaks and clip counts for a new take.
    func resetTake() {
        for channel in 0..<channelCount {
            UnsafeAtomic<UInt32>(at: takePeaks + channel).store(0, ordering: .relaxed)
            UnsafeAtomic<Int64>(at: clipCounts + channel).store(0, ordering: .relaxed)
        }
    }

    /// Opens a cycle's measurements: every `measure`/`publish` of the cycle comes after this and
    /// before `finishCycle`.
    @_noAllocation @_noLocks
    func beginCycle() {
        cycleSequence.store(cycleSequence.load(ordering: .relaxed) + 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
    }

    /// Publishes that `frames` more frames per channel have been measured, closing the cycle.
    @_noAllocation @_noLocks
    func finishCycle(frames: Int) {
        meteredFrames.store(meteredFrames.load(ordering: .relaxed) + Int64(frames), ordering: .relaxed)
        // The next even value, whether or not `beginCycle` opened the cycle.
        cycleSequence.store((cycleSequence.load(ordering: .relaxed) | 1) + 1, ordering: .releasing)
    }

    /// The frames measured and each channel's running sum of squares, as of one moment between
    /// two cycles (read again if a cycle was being added meanwhile). Not real-time: it may wait
    /// for the callback to finish a cycle.
    func totals(into sums: inout [Double]) -> Int64 {
        while true {
            let before = cycleSequence.load(ordering: .acquiring)
            if before & 1 == 0 {
                let frames = meteredFrames.load(ordering: .relaxed)
                for channel in 0..<channelCount {
                    sums[channel] = Double(bitPattern: UnsafeAtomic<UInt64>(at: sumsOfSquares + channel).load(ordering: .relaxed))
                }
                atomicMemoryFence(ordering: .acquiring)
                if cycleSequence.load(ordering: .relaxed) == before { return frames }
            }
            sched_yield()
        }
    }

    package struct Measurement {
        package var peak: Float
        var sumOfSquares: Float
        var clips: Int

        /// Two pieces of one cycle (a copy that wrapped around the ring's end) as one.
        @_noAllocation @_noLocks
        func combined(with other: Measurement) -> Measurement {
            Measurement(peak: other.peak > peak ? other.peak : peak, sumOfSquares: sumOfSquares + other.sumOfSquares,
                        clips: clips + other.clips)
        }
    }

    /// Peak |sample|, sum of squares and samples at or beyond full scale in `samples[start..<end]`.
    /// A cycle's sum fits a Float's precision; the running total is kept in Double. Eight lanes
    /// in two SIMD registers and branch-free updates (comparisons, so a NaN never becomes the
    /// peak): it is the only per-sample work on the real-time thread besides the copy.
    @_noAllocation @_noLocks
    package static func measure(_ samples: UnsafePointer<Float>, from start: Int, to end: Int) -> Measurement {
        var lanes = Lanes()
        var index = start
        while index + 8 <= end {
            lanes.add(UnsafeRawPointer(samples + index).loadUnaligned(as: SIMD8<Float>.self))
            index += 8
        }
        while index < end {
            lanes.add(samples[index])
            index += 1
        }
        return lanes.measurement
    }

    /// Copies `count` samples to `destination` and measures them on the way, reading each once:
    /// the process callback's copy to the ring when the meters are on. (No clip count: the live
    /// meter has none; the take's is counted by its writer.) `inAVX2` (`copiesInAVX2`) takes
    /// 16 samples a step in C: at 512 channels about half the time of the Swift loop's eight
    /// (BENCHMARKS.md); at 1024 the ports' buffers come from memory and both wait on it.
    @_noAllocation @_noLocks
    static func copyMeasuring(_ samples: UnsafePointer<Float>, into destination: UnsafeMutableRawPointer,
                              count: Int, inAVX2: Bool) -> Measurement {
        if inAVX2 {
            var peak: Float = 0, sumOfSquares: Float = 0
            jcap_copy_levels_avx2(samples, count, destination, &peak, &sumOfSquares)
            return Measurement(peak: peak, sumOfSquares: sumOfSquares, clips: 0)
        }
        var lanes = Lanes()
        var index = 0
        while index + 8 <= count {
            let block = UnsafeRawPointer(samples + index).loadUnaligned(as: SIMD8<Float>.self)
            destination.storeBytes(of: block, toByteOffset: index * 4, as: SIMD8<Float>.self)
            lanes.addLevels(block)
            index += 8
        }
        while index < count {
            let sample = samples[index]
            destination.storeBytes(of: sample, toByteOffset: index * 4, as: Float.self)
            lanes.addLevels(sample)
            index += 1
        }
        return lanes.measurement
    }

    /// Running peaks, sums of squares and clip counts, eight lanes each.
    struct Lanes {
        var peaks = SIMD8<Float>.zero
        var sums = SIMD8<Float>.zero
        var clips = SIMD8<Int32>.zero

        @_noAllocation @_noLocks @inline(__always)
        mutating func addLevels(_ samples: SIMD8<Float>) {
            let magnitudes = samples.replacing(with: -samples, where: samples .< 0)
            peaks.replace(with: magnitudes, where: magnitudes .> peaks)
            sums += samples * samples
        }

        @_noAllocation @_noLocks @inline(__always)
        mutating func add(_ samples: SIMD8<Float>) {
            addLevels(samples)
            clips &+= SIMD8<Int32>.zero.replacing(with: 1, where: samples.replacing(with: -samples, where: samples .< 0) .>= 1)
        }

        @_noAllocation @_noLocks @inline(__always)
        mutating func addLevels(_ sample: Float) {
            let magnitude = sample.magnitude
            if magnitude > peaks[0] { peaks[0] = magnitude }
            sums[0] += sample * sample
        }

        @_noAllocation @_noLocks @inline(__always)
        mutating func add(_ sample: Float) {
            addLevels(sample)
            if sample.magnitude >= 1 { clips[0] &+= 1 }
        }

        var measurement: Measurement {
            @_noAllocation @_noLocks get {
                let low = peaks.lowHalf, high = peaks.highHalf
                var peak: Float = 0
                for lane in 0..<4 {
                    if low[lane] > peak { peak = low[lane] }
                    if high[lane] > peak { peak = high[lane] }
                }
                return Measurement(peak: peak, sumOfSquares: sums.sum(), clips: Int(clips.wrappedSum()))
            }
        }
    }
}

import Atomics

/// What the meters gather: per channel, per cycle, the peak absolute sample and the sum of squares
/// (the process callback, from every cycle), and over the take, the highest peak and the samples
/// at or beyond full scale (the take's disk writer, from exactly the frames it writes, so they
/// begin and end on the take's exact frames). Everything is published through atomics;
/// ballistics, averaging and decibels are computed by `ChannelMeters` off the real-time thread.
///
/// Peaks are stored as the bit patterns of non-negative floats, which order like the floats
/// themselves, so a running maximum is an integer compare-and-exchange.
struct MeterAccumulators: @unchecked Sendable {
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

    init(channelCount: Int) {
        self.channelCount = channelCount
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
    }

    func deallocate() {
        windowPeaks.deallocate()
        sumsOfSquares.deallocate()
        takePeaks.deallocate()
        clipCounts.deallocate()
        meteredFrames.destroy()
    }

    /// One cycle of one channel, for the live meter.
    @_noAllocation @_noLocks
    func measure(channel: Int, samples: UnsafePointer<Float>, count: Int) {
        let cycle = Self.measure(samples, from: 0, to: count)
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

    /// Publishes that `frames` more frames per channel have been measured.
    @_noAllocation @_noLocks
    func finishCycle(frames: Int) {
        meteredFrames.store(meteredFrames.load(ordering: .relaxed) + Int64(frames), ordering: .releasing)
    }

    struct Measurement {
        var peak: Float
        var sumOfSquares: Float
        var clips: Int
    }

    /// Peak |sample|, sum of squares and samples at or beyond full scale in `samples[start..<end]`.
    /// A cycle's sum fits a Float's precision; the running total is kept in Double. Four
    /// independent lanes and branch-free updates let the compiler pipeline (and vectorise) the
    /// loop: it is the only per-sample work on the real-time thread.
    @_noAllocation @_noLocks
    static func measure(_ samples: UnsafePointer<Float>, from start: Int, to end: Int) -> Measurement {
        var peak0: Float = 0, peak1: Float = 0, peak2: Float = 0, peak3: Float = 0
        var sum0: Float = 0, sum1: Float = 0, sum2: Float = 0, sum3: Float = 0
        var clips = 0
        var index = start
        while index + 4 <= end {
            let a = samples[index], b = samples[index + 1], c = samples[index + 2], d = samples[index + 3]
            let ma = a.magnitude, mb = b.magnitude, mc = c.magnitude, md = d.magnitude
            peak0 = ma > peak0 ? ma : peak0
            peak1 = mb > peak1 ? mb : peak1
            peak2 = mc > peak2 ? mc : peak2
            peak3 = md > peak3 ? md : peak3
            sum0 += a * a
            sum1 += b * b
            sum2 += c * c
            sum3 += d * d
            clips &+= (ma >= 1 ? 1 : 0) &+ (mb >= 1 ? 1 : 0) &+ (mc >= 1 ? 1 : 0) &+ (md >= 1 ? 1 : 0)
            index += 4
        }
        while index < end {
            let sample = samples[index]
            let magnitude = sample.magnitude
            peak0 = magnitude > peak0 ? magnitude : peak0
            sum0 += sample * sample
            clips &+= magnitude >= 1 ? 1 : 0
            index += 1
        }
        let peakA = peak0 > peak1 ? peak0 : peak1
        let peakB = peak2 > peak3 ? peak2 : peak3
        return Measurement(peak: peakA > peakB ? peakA : peakB, sumOfSquares: (sum0 + sum1) + (sum2 + sum3), clips: clips)
    }
}

import CSimd

/// Channel runs to interleaved frames: the disk writer's transpose.
///
/// Each source is one channel's run of samples (a pointer straight into the ring, where the
/// process callback copied the port's buffer); the destination is frames of `sources.count`
/// samples. A mono file is one copy. Wider files go in tiles of 4 channels by 4 frames through
/// SIMD registers (four loads, eight shuffles, four stores), across a group of at most
/// `groupWidth` channels at a time so that the source lines being read stay in the first-level
/// cache, and the destination rows are written front to back. Writing one channel down a whole
/// block instead stores every `width × 4` bytes, a new cache line (at 1024 channels a new page)
/// per sample: that made the writer barely faster than real time at 1024 channels.
package enum FrameGather {
    /// Channels transposed together: 64 source lines of 64 bytes, 4 KiB of L1.
    static let groupWidth = 64

    /// Per channel of a file, measured while gathering: the highest |sample| and the count of
    /// samples at or beyond full scale, one of each a channel, side by side so that a tile's
    /// frames (a sample of each of its channels) fold into them a register at a time. Measuring
    /// in the same pass as the transpose reads each sample from memory once instead of twice.
    package struct Levels {
        package let peaks: UnsafeMutablePointer<Float>
        package let clips: UnsafeMutablePointer<Int32>
        package let width: Int

        package init(width: Int) {
            self.width = width
            peaks = .allocate(capacity: width)
            clips = .allocate(capacity: width)
            reset()
        }

        package func deallocate() {
            peaks.deallocate()
            clips.deallocate()
        }

        package func reset() {
            peaks.initialize(repeating: 0, count: width)
            clips.initialize(repeating: 0, count: width)
        }

        package func peak(_ channel: Int) -> Float { peaks[channel] }

        package func clips(_ channel: Int) -> Int { Int(clips[channel]) }

        /// One frame of four channels, `channel` on. (Comparisons, not `max`, so a NaN never
        /// becomes the peak.)
        @inlinable @inline(__always)
        func add(frame samples: SIMD4<Float>, channel: Int) {
            let magnitudes = samples.replacing(with: -samples, where: samples .< 0)
            let peak = UnsafeMutableRawPointer(peaks + channel)
            let highest = peak.loadUnaligned(as: SIMD4<Float>.self)
            peak.storeBytes(of: highest.replacing(with: magnitudes, where: magnitudes .> highest), as: SIMD4<Float>.self)
            let clip = UnsafeMutableRawPointer(clips + channel)
            let counts = clip.loadUnaligned(as: SIMD4<Int32>.self)
            clip.storeBytes(of: counts &+ SIMD4<Int32>(repeating: 0).replacing(with: 1, where: magnitudes .>= 1),
                            as: SIMD4<Int32>.self)
        }

        /// Four samples of one channel.
        @inlinable @inline(__always)
        func add(run samples: SIMD4<Float>, channel: Int) {
            let magnitudes = samples.replacing(with: -samples, where: samples .< 0)
            // A NaN is no peak: it fails the comparison and becomes 0.
            let candidates = SIMD4<Float>(repeating: 0).replacing(with: magnitudes, where: magnitudes .> 0)
            let highest = max(max(candidates[0], candidates[1]), max(candidates[2], candidates[3]))
            if highest > peaks[channel] { peaks[channel] = highest }
            clips[channel] &+= SIMD4<Int32>(repeating: 0).replacing(with: 1, where: magnitudes .>= 1).wrappedSum()
        }

        @inlinable @inline(__always)
        func add(_ sample: Float, channel: Int) {
            let magnitude = sample.magnitude
            if magnitude > peaks[channel] { peaks[channel] = magnitude }
            if magnitude >= 1 { clips[channel] &+= 1 }
        }
    }

    /// Writes `frames` frames, frame `first` on, of the channels `sources[0..<width]` to
    /// `destination`, interleaved, `width` samples a frame; with `levels`, measures every sample
    /// into it too (its channel `k` is `sources[k]`).
    /// With AVX2 (most x86-64 processors since 2013), 8 channels by 8 frames a tile in C
    /// (`jcap_interleave_avx2`: tiles in registers twice as wide, and 16 channels down all the
    /// frames before the next 16, a stream each that the hardware prefetcher follows): at 512
    /// channels, 18 GB/s against 9 of the 4 × 4 tiles with the blocks in cache (BENCHMARKS.md).
    /// `streaming`: the processor will not read the destination again (a direct file's own
    /// buffer, which the disk takes from memory); at `streamingWidth` channels and more, a
    /// multiple of 16 (a row of whole cache lines), its tiles then skip the cache
    /// (`jcap_interleave_streaming_avx2`).
    @inlinable
    package static func interleave(_ sources: UnsafePointer<UnsafePointer<Float>>, width: Int, from first: Int,
                                   frames: Int, into destination: UnsafeMutablePointer<Float>, levels: Levels? = nil,
                                   streaming: Bool = false) {
        if width == 1, hasAVX2, let levels {
            // A mono file's run, copied and measured 16 samples a step in AVX2 (the Swift loop's
            // SSE2 has no max that keeps a NaN out, so it blends).
            jcap_prefetch(sources[0] + first, frames * MemoryLayout<Float>.stride)
            return jcap_copy_measure_avx2(sources[0] + first, frames, destination, levels.peaks, levels.clips)
        }
        guard width >= 8, hasAVX2 else {
            return interleaveInTilesOfFour(sources, width: width, from: first, frames: frames, into: destination,
                                           levels: levels)
        }
        let pointers = UnsafeRawPointer(sources).assumingMemoryBound(to: UnsafePointer<Float>?.self)
        if streaming, width >= streamingWidth, width % 16 == 0 {
            return jcap_interleave_streaming_avx2(pointers, width, first, frames, destination, levels?.peaks, levels?.clips)
        }
        jcap_interleave_avx2(pointers, width, first, frames, destination, levels?.peaks, levels?.clips)
    }

    /// The narrowest file whose direct buffer is written with streaming stores: below it, the
    /// samples of the line across two rows, stored one at a time, cost more than skipping the
    /// cache saves (`jcap-writer-benchmark --kernels`).
    @usableFromInline static let streamingWidth = 256

    /// This processor runs `jcap_interleave_avx2`.
    @usableFromInline static let hasAVX2 = jcap_has_avx2() != 0

    /// `interleave` in Swift, on any processor: 4 × 4 tiles.
    @inlinable
    package static func interleaveInTilesOfFour(_ sources: UnsafePointer<UnsafePointer<Float>>, width: Int,
                                                from first: Int, frames: Int,
                                                into destination: UnsafeMutablePointer<Float>, levels: Levels? = nil) {
        if width == 1 {
            // Every line of the run asked for at once: a run is one cycle of one channel, a page
            // of its own in the ring, and line by line each waited on memory in turn (a
            // session's mono files gathered at 8 GB/s, at 13 with this; BENCHMARKS.md).
            jcap_prefetch(sources[0] + first, frames * MemoryLayout<Float>.stride)
            guard let levels else {
                destination.update(from: sources[0] + first, count: frames)
                return
            }
            copyMeasuring(sources[0] + first, frames: frames, into: destination, levels: levels)
            return
        }
        var groupStart = 0
        while groupStart < width {
            let groupEnd = min(groupStart + groupWidth, width)
            let quadEnd = groupStart + (groupEnd - groupStart) / 4 * 4
            var frame = 0
            while frame + 4 <= frames {
                var channel = groupStart
                while channel < quadEnd {
                    transposeTile(sources + channel, from: first + frame, into: destination + frame * width + channel,
                                  rowStride: width, levels: levels, channel: channel)
                    channel += 4
                }
                while channel < groupEnd {
                    let source = sources[channel] + first + frame
                    destination[frame * width + channel] = source[0]
                    destination[(frame + 1) * width + channel] = source[1]
                    destination[(frame + 2) * width + channel] = source[2]
                    destination[(frame + 3) * width + channel] = source[3]
                    levels?.add(run: UnsafeRawPointer(source).loadUnaligned(as: SIMD4<Float>.self), channel: channel)
                    channel += 1
                }
                frame += 4
            }
            while frame < frames {
                for channel in groupStart..<groupEnd {
                    let sample = sources[channel][first + frame]
                    destination[frame * width + channel] = sample
                    levels?.add(sample, channel: channel)
                }
                frame += 1
            }
            groupStart = groupEnd
        }
    }

    /// One channel: a copy, measured on the way, 16 samples a step in registers (the levels are
    /// read and written once, not for every step: a store through `destination` could alias them).
    @inlinable
    static func copyMeasuring(_ source: UnsafePointer<Float>, frames: Int, into destination: UnsafeMutablePointer<Float>,
                              levels: Levels) {
        var peaks = SIMD16<Float>.zero
        var clips = SIMD16<Int32>.zero
        var frame = 0
        while frame + 16 <= frames {
            let samples = UnsafeRawPointer(source + frame).loadUnaligned(as: SIMD16<Float>.self)
            UnsafeMutableRawPointer(destination + frame).storeBytes(of: samples, as: SIMD16<Float>.self)
            // |x| by clearing the sign bit; a NaN stays a NaN, which no comparison takes.
            let magnitudes = unsafeBitCast(unsafeBitCast(samples, to: SIMD16<UInt32>.self) & 0x7FFF_FFFF,
                                           to: SIMD16<Float>.self)
            peaks.replace(with: magnitudes, where: magnitudes .> peaks)
            clips &+= SIMD16<Int32>(repeating: 0).replacing(with: 1, where: magnitudes .>= 1)
            frame += 16
        }
        // No lane is a NaN (comparisons never take one), so the highest is exact.
        let highest = peaks.max()
        if highest > levels.peaks[0] { levels.peaks[0] = highest }
        levels.clips[0] &+= clips.wrappedSum()
        while frame < frames {
            destination[frame] = source[frame]
            levels.add(source[frame], channel: 0)
            frame += 1
        }
    }

    /// Four frames of four channels: rows a, b, c, d (one channel each) in, columns out, each
    /// column (a frame) measured into the four channels' levels.
    @inlinable @inline(__always)
    static func transposeTile(_ sources: UnsafePointer<UnsafePointer<Float>>, from first: Int,
                              into destination: UnsafeMutablePointer<Float>, rowStride: Int, levels: Levels?,
                              channel: Int) {
        let a = UnsafeRawPointer(sources[0] + first).loadUnaligned(as: SIMD4<Float>.self)
        let b = UnsafeRawPointer(sources[1] + first).loadUnaligned(as: SIMD4<Float>.self)
        let c = UnsafeRawPointer(sources[2] + first).loadUnaligned(as: SIMD4<Float>.self)
        let d = UnsafeRawPointer(sources[3] + first).loadUnaligned(as: SIMD4<Float>.self)
        // unpacklo / unpackhi, then movelh / movehl.
        let abLow = SIMD4(a[0], b[0], a[1], b[1]), abHigh = SIMD4(a[2], b[2], a[3], b[3])
        let cdLow = SIMD4(c[0], d[0], c[1], d[1]), cdHigh = SIMD4(c[2], d[2], c[3], d[3])
        let frame0 = SIMD4(lowHalf: abLow.lowHalf, highHalf: cdLow.lowHalf)
        let frame1 = SIMD4(lowHalf: abLow.highHalf, highHalf: cdLow.highHalf)
        let frame2 = SIMD4(lowHalf: abHigh.lowHalf, highHalf: cdHigh.lowHalf)
        let frame3 = SIMD4(lowHalf: abHigh.highHalf, highHalf: cdHigh.highHalf)
        UnsafeMutableRawPointer(destination).storeBytes(of: frame0, as: SIMD4<Float>.self)
        UnsafeMutableRawPointer(destination + rowStride).storeBytes(of: frame1, as: SIMD4<Float>.self)
        UnsafeMutableRawPointer(destination + 2 * rowStride).storeBytes(of: frame2, as: SIMD4<Float>.self)
        UnsafeMutableRawPointer(destination + 3 * rowStride).storeBytes(of: frame3, as: SIMD4<Float>.self)
        if let levels {
            levels.add(frame: frame0, channel: channel)
            levels.add(frame: frame1, channel: channel)
            levels.add(frame: frame2, channel: channel)
            levels.add(frame: frame3, channel: channel)
        }
    }
}

import Testing
@testable import JackCapture

@Suite("Page-cache window")
struct PageCacheWindowTests {
    typealias Step = PageCacheWindow.Step

    static let kibibyte: Int64 = 1_024
    static let mebibyte: Int64 = 1_024 * 1_024

    /// A small deterministic generator (SplitMix64), so a failing sequence can be replayed.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test("a new window has started nothing and counts the head as released")
    func initialState() {
        let window = PageCacheWindow(chunk: 256 * Self.kibibyte, lag: Self.mebibyte, head: 64 * Self.kibibyte)
        #expect(window.chunk == 262_144)
        #expect(window.lag == 1_048_576)
        #expect(window.head == 65_536)
        #expect(window.writebackStarted == 0)
        #expect(window.released == 65_536)
    }

    @Test("writeback starts a chunk at a time; release waits until writeback is a chunk past released + lag, page aligned")
    func exactSequence() {
        var window = PageCacheWindow(chunk: 256 * Self.kibibyte, lag: Self.mebibyte, head: 64 * Self.kibibyte)

        // Below a chunk: nothing, however many writes.
        #expect(window.advance(to: 1_000) == Step())
        #expect(window.advance(to: 262_143) == Step())
        #expect(window.writebackStarted == 0)

        // The first whole chunk: writeback of everything written, no release (nothing is lag behind).
        #expect(window.advance(to: 262_144) == Step(startWriteback: 0..<262_144, release: nil))
        #expect(window.writebackStarted == 262_144)
        #expect(window.released == 65_536)

        // Writeback up to 1_376_255: 1_376_255 - lag = 327_679, page aligned 323_584, which is
        // 258_048 past the head: one page short of a chunk, so still no release.
        #expect(window.advance(to: 1_376_255) == Step(startWriteback: 262_144..<1_376_255, release: nil))
        #expect(window.released == 65_536)

        // Past the release threshold by length, but less than a chunk written since the last
        // writeback: release follows writeback, not length, so nothing.
        #expect(window.advance(to: 1_380_351) == Step())
        #expect(window.writebackStarted == 1_376_255)

        // A chunk more: writeback to 1_638_404 (not page aligned), 1_638_404 - lag = 589_828,
        // released down to the page below, 589_824.
        #expect(window.advance(to: 1_638_404) == Step(startWriteback: 1_376_255..<1_638_404, release: 65_536..<589_824))
        #expect(window.writebackStarted == 1_638_404)
        #expect(window.released == 589_824)

        // The next chunk: both ranges continue exactly where the previous ones ended.
        #expect(window.advance(to: 1_900_548) == Step(startWriteback: 1_638_404..<1_900_548, release: 589_824..<851_968))
        #expect(window.released == 851_968)

        // The same length again does nothing.
        #expect(window.advance(to: 1_900_548) == Step())
    }

    @Test("a big write releases everything lag behind it in one range")
    func bigWrite() {
        var window = PageCacheWindow(chunk: 64 * Self.kibibyte, lag: 128 * Self.kibibyte, head: 4_096)
        // 10 MiB + 100 at once: 10_485_860 - 131_072 = 10_354_788, page aligned 10_354_688.
        #expect(window.advance(to: 10_485_860) == Step(startWriteback: 0..<10_485_860, release: 4_096..<10_354_688))
    }

    @Test("no lag: each chunk is released as soon as its writeback starts")
    func noLag() {
        var window = PageCacheWindow(chunk: 8_192, lag: 0, head: 0)
        #expect(window.released == 0)
        #expect(window.advance(to: 8_192) == Step(startWriteback: 0..<8_192, release: 0..<8_192))
        #expect(window.advance(to: 12_000) == Step())
        // 16_500 rounds down to 16_384: 8_192 more, a chunk, released.
        #expect(window.advance(to: 16_500) == Step(startWriteback: 8_192..<16_500, release: 8_192..<16_384))
        // 24_600 is 8_100 past 16_500: under a chunk, nothing.
        #expect(window.advance(to: 24_600) == Step())
        // 24_700 rounds down to 24_576: 8_192 more again.
        #expect(window.advance(to: 24_700) == Step(startWriteback: 16_500..<24_700, release: 16_384..<24_576))
    }

    @Test("the head, page aligned, is never released")
    func headKept() {
        var window = PageCacheWindow(chunk: 4_096, lag: 0, head: 64 * Self.kibibyte)
        #expect(window.advance(to: 65_536) == Step(startWriteback: 0..<65_536, release: nil))
        #expect(window.advance(to: 69_632) == Step(startWriteback: 65_536..<69_632, release: 65_536..<69_632))
        var big = PageCacheWindow(chunk: 4_096, lag: 0, head: 64 * Self.kibibyte)
        let step = big.advance(to: 100 * Self.mebibyte)
        #expect(step.release == 65_536..<104_857_600)
    }

    @Test("a head that is not a whole number of pages: none of its bytes are released")
    func unalignedHeadKept() {
        // The documented contract: "The first `head` bytes stay cached". A head of 5_000 bytes
        // ends inside the second page, so that page must stay too (release from 8_192 on).
        var window = PageCacheWindow(chunk: 4_096, lag: 0, head: 5_000)
        let step = window.advance(to: 65_536)
        #expect(step.release?.lowerBound == 8_192)
        #expect(step.release?.upperBound == 65_536)
    }

    @Test("sharing a budget: one file gets the 32 MiB lag cap and 1 MiB chunks")
    func sharingOneFile() {
        let window = PageCacheWindow(files: 1)
        #expect(window.lag == 32 * Self.mebibyte)
        #expect(window.chunk == Self.mebibyte)
        #expect(window.head == 64 * Self.kibibyte)
        // Zero files counts as one.
        #expect(PageCacheWindow(files: 0) == window)
        // A budget far larger still caps the lag at 32 MiB and the chunk at 1 MiB.
        let large = PageCacheWindow(sharing: 4_096 * Self.mebibyte, files: 1)
        #expect(large.lag == 32 * Self.mebibyte)
        #expect(large.chunk == Self.mebibyte)
    }

    @Test("sharing a budget: more files, smaller lag and chunk, never below the smallest chunk")
    func sharingManyFiles() {
        let expected: [(files: Int, lag: Int64, chunk: Int64)] = [
            (2, 16 * Self.mebibyte, Self.mebibyte),
            // 64 MiB / 3 = 22_369_621, half 11_184_810, page aligned 11_182_080; chunk capped.
            (3, 11_182_080, Self.mebibyte),
            (16, 2 * Self.mebibyte, 256 * Self.kibibyte),
            (32, Self.mebibyte, 128 * Self.kibibyte),
            (64, 512 * Self.kibibyte, 64 * Self.kibibyte),
            // 64 MiB / 100 = 671_088, half 335_544, page aligned 331_776; chunk 40_960 raised to 64 KiB.
            (100, 331_776, 64 * Self.kibibyte),
            (128, 256 * Self.kibibyte, 64 * Self.kibibyte),
            (1_024, 64 * Self.kibibyte, 64 * Self.kibibyte),
            (100_000, 64 * Self.kibibyte, 64 * Self.kibibyte),
        ]
        for (files, lag, chunk) in expected {
            let window = PageCacheWindow(files: files)
            #expect(window.lag == lag, "\(files) files")
            #expect(window.chunk == chunk, "\(files) files")
            #expect(window.lag % PageCacheWindow.pageSize == 0, "\(files) files")
            #expect(window.chunk >= PageCacheWindow.smallestChunk, "\(files) files")
            #expect(window.lag >= PageCacheWindow.smallestChunk, "\(files) files")
        }
        // Monotonic: never more page cache a file for more files.
        var previous = PageCacheWindow(files: 1)
        for files in 2...2_048 {
            let window = PageCacheWindow(files: files)
            #expect(window.lag <= previous.lag && window.chunk <= previous.chunk, "\(files) files")
            previous = window
        }
        let custom = PageCacheWindow(sharing: 8 * Self.mebibyte, files: 4, head: 12_288)
        #expect(custom.lag == Self.mebibyte)
        #expect(custom.chunk == 128 * Self.kibibyte)
        #expect(custom.head == 12_288)
    }

    @Test("page alignment rounds down, never below zero")
    func pageAligned() {
        #expect(PageCacheWindow.pageAligned(0) == 0)
        #expect(PageCacheWindow.pageAligned(4_095) == 0)
        #expect(PageCacheWindow.pageAligned(4_096) == 4_096)
        #expect(PageCacheWindow.pageAligned(8_191) == 4_096)
        #expect(PageCacheWindow.pageAligned(-1) == 0)
        #expect(PageCacheWindow.pageAligned(-10_000) == 0)
    }

    /// A window's sizes and the seed of its writes.
    struct RandomCase: Sendable, CustomTestStringConvertible {
        var chunk: Int64
        var lag: Int64
        var head: Int64
        var seed: UInt64
        var testDescription: String { "chunk \(chunk), lag \(lag), head \(head), seed \(seed)" }
    }

    static let randomCases: [RandomCase] = [
        RandomCase(chunk: 256 * kibibyte, lag: mebibyte, head: 64 * kibibyte, seed: 1),
        RandomCase(chunk: 64 * kibibyte, lag: 0, head: 0, seed: 2),
        RandomCase(chunk: 10_000, lag: 30_000, head: 4_096, seed: 3),
        RandomCase(chunk: 4_096, lag: 4_096, head: 8_192, seed: 4),
        RandomCase(chunk: mebibyte, lag: 32 * mebibyte, head: 64 * kibibyte, seed: 5),
    ]

    @Test("random writes: contiguous ranges that never overlap, release lag behind writeback and page aligned",
          arguments: randomCases)
    func randomWrites(_ random: RandomCase) {
        let (chunk, lag, head) = (random.chunk, random.lag, random.head)
        var generator = SplitMix64(state: random.seed)
        var window = PageCacheWindow(chunk: chunk, lag: lag, head: head)
        var length: Int64 = 0
        var writebackEnd: Int64 = 0
        var releaseEnd = head
        var releasedBytes: Int64 = 0
        var failures: [String] = []
        for write in 0..<20_000 {
            // Mostly audio-sized writes, some tiny, some several chunks at once.
            let size: Int64 = switch Int.random(in: 0..<10, using: &generator) {
            case 0: Int64.random(in: 0...16, using: &generator)
            case 1: Int64.random(in: chunk...(4 * chunk), using: &generator)
            default: Int64.random(in: 1...(chunk / 2 + 1), using: &generator)
            }
            length += size
            let step = window.advance(to: length)
            if let range = step.startWriteback {
                if range.lowerBound != writebackEnd { failures.append("write \(write): writeback \(range) after \(writebackEnd)") }
                if range.upperBound != length { failures.append("write \(write): writeback \(range) at length \(length)") }
                if range.count < chunk { failures.append("write \(write): writeback \(range) under a chunk") }
                writebackEnd = range.upperBound
            } else if length - writebackEnd >= chunk {
                failures.append("write \(write): a chunk or more (\(length - writebackEnd)) unstarted at \(length)")
            }
            if let range = step.release {
                if range.lowerBound != releaseEnd { failures.append("write \(write): release \(range) after \(releaseEnd)") }
                if range.lowerBound < head { failures.append("write \(write): release \(range) in the head") }
                if range.upperBound > writebackEnd - lag {
                    failures.append("write \(write): release \(range) past writeback \(writebackEnd) - lag")
                }
                if range.lowerBound % PageCacheWindow.pageSize != 0 || range.upperBound % PageCacheWindow.pageSize != 0 {
                    failures.append("write \(write): release \(range) not page aligned")
                }
                if range.count < chunk { failures.append("write \(write): release \(range) under a chunk") }
                releaseEnd = range.upperBound
                releasedBytes += Int64(range.count)
            }
            if window.writebackStarted != writebackEnd || window.released != releaseEnd {
                failures.append("write \(write): window at \(window.writebackStarted)/\(window.released)")
            }
            // The footprint stays within lag + two chunks (one unstarted, one not yet released) + a page.
            if length - window.released >= lag + 2 * chunk + PageCacheWindow.pageSize {
                failures.append("write \(write): \(length - window.released) bytes cached at \(length)")
            }
            if failures.count > 10 { break }
        }
        #expect(failures.isEmpty, "\(failures)")
        // Everything from the head to within the window was released, once.
        #expect(releasedBytes == window.released - head)
        #expect(window.released > head)
    }
}

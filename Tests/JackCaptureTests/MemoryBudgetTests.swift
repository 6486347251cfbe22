import Foundation
import Testing
@testable import JackCapture

@Suite("How long a ring buffer this machine can hold")
struct MemoryBudgetTests {
    static let mebibyte = 1 << 20

    @Test("each limit keeps a quarter, at least 64 MiB, for everything else; the smallest counts")
    func largestRing() {
        #expect(MemoryBudget(availableBytes: 4_096 * Self.mebibyte).largestRingBytes == 3_072 * Self.mebibyte)
        #expect(MemoryBudget(availableBytes: 100 * Self.mebibyte).largestRingBytes == 36 * Self.mebibyte)
        #expect(MemoryBudget(availableBytes: 32 * Self.mebibyte).largestRingBytes == 0)
        #expect(MemoryBudget(availableBytes: 4_096 * Self.mebibyte, addressSpaceRoom: 1_024 * Self.mebibyte)
            .largestRingBytes == 768 * Self.mebibyte)
        #expect(MemoryBudget(availableBytes: 4_096 * Self.mebibyte, addressSpaceRoom: 2_048 * Self.mebibyte,
                             dataRoom: 200 * Self.mebibyte).largestRingBytes == 136 * Self.mebibyte)
        #expect(MemoryBudget(availableBytes: nil).largestRingBytes == Int.max)
    }

    @Test("a kernel that does not overcommit: the room under its commit limit counts, however much is free")
    func commitLimit() throws {
        let meminfo = ["CommitLimit": 2_048 * Self.mebibyte, "Committed_AS": 1_648 * Self.mebibyte,
                       "MemAvailable": 16_384 * Self.mebibyte]
        #expect(MemoryBudget.commitRoom(overcommitMode: "2", meminfo: meminfo) == 400 * Self.mebibyte)
        #expect(MemoryBudget.commitRoom(overcommitMode: "0", meminfo: meminfo) == nil)
        #expect(MemoryBudget.commitRoom(overcommitMode: "1", meminfo: meminfo) == nil)
        #expect(MemoryBudget.commitRoom(overcommitMode: nil, meminfo: meminfo) == nil)
        #expect(MemoryBudget.commitRoom(overcommitMode: "2", meminfo: [:]) == nil)
        #expect(MemoryBudget.commitRoom(overcommitMode: "2", meminfo: ["CommitLimit": 1, "Committed_AS": 2]) == 0)
        let budget = MemoryBudget(availableBytes: 16_384 * Self.mebibyte, commitRoom: 400 * Self.mebibyte)
        #expect(budget.largestRingBytes == 300 * Self.mebibyte)
        // 4 s of 512 channels (393 MB) is refused, naming what fits, where free memory alone takes it.
        #expect(throws: CaptureError.self) {
            try budget.ringByteCount(seconds: 4, sampleRate: 48_000, period: 1_024, channels: 512)
        }
        #expect(try MemoryBudget(availableBytes: 16_384 * Self.mebibyte)
            .ringByteCount(seconds: 4, sampleRate: 48_000, period: 1_024, channels: 512) > 0)
    }

    @Test("a ring that fits is its CaptureEngine.ringByteCount")
    func fits() throws {
        let budget = MemoryBudget(availableBytes: 1_024 * Self.mebibyte)
        #expect(try budget.ringByteCount(seconds: 4, sampleRate: 48_000, period: 1_024, channels: 2)
            == CaptureEngine.ringByteCount(seconds: 4, sampleRate: 48_000, period: 1_024, channels: 2))
    }

    @Test("one that does not is refused, naming the longest that fits, in one line")
    func tooLarge() throws {
        // A budget whose largest ring is exactly 312.5 s of 2 channels at 48 kHz.
        let largest = CaptureEngine.ringByteCount(seconds: 312.5, sampleRate: 48_000, period: 1_024, channels: 2)
        let budget = MemoryBudget(availableBytes: largest + MemoryBudget.minimumMargin)
        #expect(budget.largestRingBytes == largest)
        #expect(throws: CaptureError.bufferTooLarge(requestedSeconds: 100_000, maximumSeconds: 312.5, channels: 2, sampleRate: 48_000)) {
            try budget.ringByteCount(seconds: 100_000, sampleRate: 48_000, period: 1_024, channels: 2)
        }
        let error = CaptureError.bufferTooLarge(requestedSeconds: 100_000, maximumSeconds: 312.5, channels: 2, sampleRate: 48_000)
        #expect(error.description == "the buffer cannot hold 100000s: this machine can hold at most 312.5s of 2 channels at 48000 Hz")
        #expect(try budget.ringByteCount(seconds: 312.5, sampleRate: 48_000, period: 1_024, channels: 2) == largest)
        #expect(throws: CaptureError.self) {
            try budget.ringByteCount(seconds: 312.5 + 1.0 / 48_000, sampleRate: 48_000, period: 1_024, channels: 2)
        }
    }

    @Test("the maximum is the longest whole-frame buffer that fits", arguments: [1, 2, 8, 64, 512])
    func maximumIsExact(channels: Int) {
        let budget = 123_456_789
        let seconds = MemoryBudget.maximumSeconds(bytes: budget, sampleRate: 44_100, period: 256, channels: channels)
        let frames = Int((seconds * 44_100).rounded())
        #expect(CaptureEngine.ringByteCount(seconds: Double(frames) / 44_100, sampleRate: 44_100, period: 256, channels: channels) <= budget)
        #expect(CaptureEngine.ringByteCount(seconds: Double(frames + 1) / 44_100, sampleRate: 44_100, period: 256, channels: channels) > budget)
    }

    @Test("not even the shortest ring fits: at most 0s")
    func nothingFits() {
        #expect(throws: CaptureError.bufferTooLarge(requestedSeconds: 1, maximumSeconds: 0, channels: 64, sampleRate: 48_000)) {
            try MemoryBudget(availableBytes: 65 * Self.mebibyte).ringByteCount(seconds: 1, sampleRate: 48_000, period: 1_024, channels: 64)
        }
    }

    @Test("lengths that are not a finite number of seconds above zero", arguments: [Double.nan, .infinity, -.infinity, 0, -1])
    func badLength(seconds: Double) {
        #expect(throws: CaptureError.self) {
            try MemoryBudget(availableBytes: 1 << 30).ringByteCount(seconds: seconds, sampleRate: 48_000, period: 1_024, channels: 2)
        }
        do {
            _ = try MemoryBudget(availableBytes: 1 << 30).ringByteCount(seconds: seconds, sampleRate: 48_000, period: 1_024, channels: 2)
        } catch {
            guard case .badBufferLength = error else { Issue.record("\(error)"); return }
        }
    }

    @Test("this machine: memory available is read, and no machine holds a billion seconds of stereo")
    func current() throws {
        let budget = MemoryBudget.current()
        let mode = try String(contentsOfFile: "/proc/sys/vm/overcommit_memory", encoding: .utf8)
        #expect((budget.commitRoom != nil) == (mode == "2\n"), "overcommit_memory \(mode)")
        let available = try #require(budget.availableBytes)
        #expect(available > 0)
        #expect(budget.largestRingBytes < available)
        #expect(throws: CaptureError.self) {
            try budget.ringByteCount(seconds: 1e9, sampleRate: 48_000, period: 1_024, channels: 2)
        }
        #expect(try budget.ringByteCount(seconds: 4, sampleRate: 48_000, period: 1_024, channels: 2) > 0)
    }

    @Test("/proc fields in bytes")
    func procFields() {
        let fields = MemoryBudget.procFields("/proc/self/status")
        #expect((fields["VmSize"] ?? 0) > 1_024 * 1_024)
        #expect(fields["VmSize"].map { $0 % 1_024 } == 0, "kB turned into bytes")
        #expect(MemoryBudget.procFields("/nonexistent").isEmpty)
    }

    @Test("seconds as short text, never overstating a maximum")
    func secondsText() {
        #expect(CaptureError.seconds(312.5) == "312.5s")
        #expect(CaptureError.seconds(100_000) == "100000s")
        #expect(CaptureError.seconds(0.0489999) == "0.048s")
        #expect(CaptureError.seconds(0) == "0s")
        #expect(CaptureError.seconds(1e30) == "1e+30s")
    }
}

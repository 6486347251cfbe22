import Atomics
import Foundation
import Testing
@testable import JackCapture

@Suite("Channel meters: thread safety and channels out of range")
struct ChannelMetersTests {
    /// Two channels with one cycle of a full-scale peak on both, as the process callback would
    /// publish it.
    static func meters() -> (ChannelMeters, MeterAccumulators) {
        let accumulators = MeterAccumulators(channelCount: 2)
        var samples = [Float](repeating: 0.5, count: 480)
        samples[7] = 1
        samples.withUnsafeBufferPointer { buffer in
            for channel in 0..<2 {
                accumulators.measure(channel: channel, samples: buffer.baseAddress!, count: 480)
                let take = MeterAccumulators.measure(buffer.baseAddress!, from: 0, to: 480)
                accumulators.recordTake(channel: channel, peak: take.peak, clips: take.clips)
            }
        }
        accumulators.finishCycle(frames: 480)
        return (ChannelMeters(accumulators: accumulators, sampleRate: 48_000), accumulators)
    }

    @Test("a channel out of range reads as silence, as AVAudioRecorder reads it", arguments: [-1, 2, 99, Int.min, Int.max])
    func outOfRange(channel: Int) {
        let (meters, accumulators) = Self.meters()
        defer { accumulators.deallocate() }
        meters.update()
        #expect(meters.averagePower(forChannel: channel) == ChannelMeters.floor)
        #expect(meters.peakPower(forChannel: channel) == ChannelMeters.floor)
        #expect(meters.highestPeak(forChannel: channel) == ChannelMeters.floor)
        #expect(meters.clipCount(forChannel: channel) == 0)
        #expect(meters.reading(forChannel: channel) == .silent)
        #expect(meters.peakPower(forChannel: 1) == 0, "in range, the full-scale peak reads 0 dBFS")
        #expect(meters.clipCount(forChannel: 1) == 1)
    }

    @Test("every channel read at once reads as each channel read alone")
    func allChannelsAtOnce() {
        let (meters, accumulators) = Self.meters()
        defer { accumulators.deallocate() }
        meters.update()
        #expect(meters.readings() == (0..<2).map { meters.reading(forChannel: $0) })
        #expect(meters.recentPeaks() == (0..<2).map { meters.recentPeak(forChannel: $0) })
        #expect(meters.recentPeaks() == [0, 0], "the full-scale sample of the last window")
    }

    /// A read from another thread while an update is half done (the first channel moved on, the
    /// second not yet) must wait for the update to finish, not see half of it.
    @Test("reads wait for an update in progress")
    func readsWaitForUpdates() throws {
        let (meters, accumulators) = Self.meters()
        defer { accumulators.deallocate() }
        let done = DispatchSemaphore(value: 0)
        let state = ReadState()
        meters.midUpdate = {
            Thread.detachNewThread {
                let readings = (0..<2).map { meters.reading(forChannel: $0) }
                state.set(readings)
                done.signal()
            }
            usleep(200_000)  // the reader has long had time to read, were it not waiting
            state.markUpdateEnding()
        }
        meters.update()
        meters.midUpdate = nil
        #expect(done.wait(timeout: .now() + 10) == .success)
        let (readings, finishedDuringUpdate) = state.get()
        #expect(!finishedDuringUpdate, "a read finished while update() was half done")
        #expect(readings.count == 2)
        #expect(readings.first == readings.last, "both channels read after the same update: \(readings)")
        #expect(readings.first?.peakPower == 0)
    }

    @Test("meters shared by many threads: every read is a reading of whole updates")
    func concurrentUse() {
        let (meters, accumulators) = Self.meters()
        defer { accumulators.deallocate() }
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            for _ in 0..<2_000 {
                if index == 0 { meters.update() } else {
                    let reading = meters.reading(forChannel: index % 2)
                    #expect(reading.clipCount == 1)
                }
            }
        }
    }
}

private final class ReadState: @unchecked Sendable {
    private let lock = NSLock()
    private var readings: [MeterReading] = []
    private var updateEnding = false
    private var finishedDuringUpdate = false

    func set(_ readings: [MeterReading]) {
        lock.withLock {
            self.readings = readings
            finishedDuringUpdate = !updateEnding
        }
    }

    func markUpdateEnding() { lock.withLock { updateEnding = true } }
    func get() -> ([MeterReading], Bool) { lock.withLock { (readings, finishedDuringUpdate) } }

    /// The reader's sums and frame count cover the same cycles, however the callback's cycles
    /// and the reads interleave: a sum a cycle ahead of the frames read the meters hot on a busy
    /// machine (MeteringTests, +0.27 dB).
    @Test("sums and frames are read as of one moment between cycles")
    func totalsAgree() async {
        let accumulators = MeterAccumulators(channelCount: 4)
        defer { accumulators.deallocate() }
        let ones = [Float](repeating: 1, count: 64)
        let done = ManagedAtomic(false)
        let writer = Thread {
            ones.withUnsafeBufferPointer { buffer in
                while !done.load(ordering: .relaxed) {
                    accumulators.beginCycle()
                    for channel in 0..<4 { accumulators.measure(channel: channel, samples: buffer.baseAddress!, count: 64) }
                    accumulators.finishCycle(frames: 64)
                    usleep(20)   // a callback's cycles come apart, as JACK's periods do
                }
            }
        }
        writer.start()
        var sums = [Double](repeating: 0, count: 4)
        var disagreements = 0
        for _ in 0..<20_000 {
            let frames = accumulators.totals(into: &sums)
            if sums.contains(where: { $0 != Double(frames) }) { disagreements += 1 }
        }
        done.store(true, ordering: .relaxed)
        while !writer.isFinished { try? await Task.sleep(nanoseconds: 1_000_000) }
        #expect(disagreements == 0)
    }
}

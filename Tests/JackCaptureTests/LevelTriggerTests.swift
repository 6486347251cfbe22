import Testing
@testable import JackCapture

@Suite("The sound trigger's decisions (LevelTrigger) and the pre-roll's held cycles (PreRollQueue)")
struct LevelTriggerTests {
    @Test("the first and last sample at or above the level, either sign; -1 for none")
    func indexes() {
        let samples: [Float] = [0, 0.005, -0.02, 0.009, 0.01, -0.001, 0]
        samples.withUnsafeBufferPointer { buffer in
            #expect(LevelTrigger.firstIndex(atOrAbove: 0.01, in: buffer.baseAddress!, count: buffer.count) == 2)
            #expect(LevelTrigger.lastIndex(atOrAbove: 0.01, in: buffer.baseAddress!, count: buffer.count) == 4)
            #expect(LevelTrigger.firstIndex(atOrAbove: 0.5, in: buffer.baseAddress!, count: buffer.count) == -1)
            #expect(LevelTrigger.lastIndex(atOrAbove: 0.5, in: buffer.baseAddress!, count: buffer.count) == -1)
            #expect(LevelTrigger.firstIndex(atOrAbove: 0.01, in: buffer.baseAddress!, count: 2) == -1, "only `count` samples")
        }
    }

    @Test("-40 dBFS is 0.01; 0 dBFS is full scale")
    func amplitude() {
        #expect(abs(LevelTrigger.amplitude(decibels: -40) - 0.01) < 1e-7)
        #expect(LevelTrigger.amplitude(decibels: 0) == 1)
    }

    @Test("the stop comes the quiet length after the last loud frame, once the cycles have passed it")
    func stopFrame() {
        #expect(LevelTrigger.stopFrame(lastLoud: 1_000, quietFrames: 100, cycleEnd: 1_100) == nil)
        #expect(LevelTrigger.stopFrame(lastLoud: 1_000, quietFrames: 100, cycleEnd: 1_101) == 1_101)
        #expect(LevelTrigger.stopFrame(lastLoud: 1_000, quietFrames: 100, cycleEnd: 2_048) == 1_101)
        #expect(LevelTrigger.stopFrame(lastLoud: UInt32.max, quietFrames: 10, cycleEnd: 64) == 10, "across the clock's wrap")
    }

    @Test("trigger levels as written: -40dB, -40 dB, -40, -6dBFS; anything else refused", arguments: [
        ("-40dB", -40.0), ("-40 dB", -40), ("-40", -40), ("-6dBFS", -6), ("0dB", 0), ("-160", -160),
    ])
    func levels(text: String, value: Double) throws {
        #expect(try TriggerLevel.parse(text) == value)
    }

    @Test("refused levels", arguments: ["", "loud", "+3dB", "3", "-161dB", "nan", "-inf"])
    func refused(text: String) {
        #expect(throws: CaptureError.self) { try TriggerLevel.parse(text) }
    }

    @Test("the queue holds a pre-roll's worth of cycles and lets the oldest go beyond it")
    func preRollQueue() {
        var queue = PreRollQueue(capacity: PreRollQueue.capacity(forPreRollFrames: 1_000))
        defer { queue.deallocate() }
        #expect(queue.capacity == 1_000 / 16 + 2)
        for index in 0..<5 {
            var cycle = PendingCycle(reading: UInt32(index * 256), frames: 256)
            cycle.stagedBytes = 100
            queue.append(PlacedCycle(placement: CyclePlacement(start: UInt32(index * 256)), start: UInt32(index * 256), cycle: cycle))
        }
        #expect(queue.count == 5 && queue.frames == 1_280 && queue.stagedBytes == 500)
        // 1280 - 256 = 1024 frames remain without the oldest: at least the pre-roll of 1000.
        #expect(queue.holdsMoreThan(1_000))
        _ = queue.removeOldest()
        // 1024 - 256 = 768 would remain: the oldest is still needed.
        #expect(!queue.holdsMoreThan(1_000))
        #expect(queue[0].start == 256 && queue.frames == 1_024 && queue.stagedBytes == 400)
        queue.removeAll()
        #expect(queue.count == 0 && queue.frames == 0 && !queue.holdsMoreThan(0))
    }
}

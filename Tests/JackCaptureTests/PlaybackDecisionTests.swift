import XCTest
@testable import JackCapture

/// The player callback's decisions, without JACK.
final class PlaybackDecisionTests: XCTestCase {
    func testAStartFrameInTheCycleStartsAtItsOffset() {
        XCTAssertEqual(PlaybackStart.decide(startFrame: 1_000, cycleFrame: 1_000, frames: 256, firstCycle: true), .inCycle(offset: 0))
        XCTAssertEqual(PlaybackStart.decide(startFrame: 1_255, cycleFrame: 1_000, frames: 256, firstCycle: true), .inCycle(offset: 255))
        XCTAssertEqual(PlaybackStart.decide(startFrame: 1_256, cycleFrame: 1_000, frames: 256, firstCycle: true), .later)
        XCTAssertEqual(PlaybackStart.decide(startFrame: 5, cycleFrame: UInt32.max - 10, frames: 256, firstCycle: true),
                       .inCycle(offset: 16), "across the 32-bit wrap")
    }

    func testAPassedStartIsLateOnlyInTheFirstCycle() {
        XCTAssertEqual(PlaybackStart.decide(startFrame: 900, cycleFrame: 1_000, frames: 256, firstCycle: true), .passed(by: 100))
        // A later cycle said "later" before: the frame fell in a gap JACK skipped.
        XCTAssertEqual(PlaybackStart.decide(startFrame: 900, cycleFrame: 1_000, frames: 256, firstCycle: false), .inCycle(offset: 0))
    }

    func testSeekRequestsPackAndCompareGenerationsAcrossTheWrap() {
        let request = SeekRequest(generation: 0xFFFF, frame: 123_456_789)
        XCTAssertEqual(SeekRequest(packed: request.packed), request)
        let next = request.next(to: 42)
        XCTAssertEqual(next.generation, 0)
        XCTAssertEqual(next.frame, 42)
        XCTAssertTrue(SeekRequest.isStale(blockGeneration: 0xFFFF, current: 0))
        XCTAssertTrue(SeekRequest.isStale(blockGeneration: 4, current: 5))
        XCTAssertFalse(SeekRequest.isStale(blockGeneration: 5, current: 5))
        XCTAssertFalse(SeekRequest.isStale(blockGeneration: 6, current: 5), "a seek the callback has not loaded yet waits")
        XCTAssertEqual(SeekRequest(generation: 1, frame: -5).frame, 0)
    }

    func testLoopsRewindAsManyTimesAsAsked() {
        XCTAssertEqual(LoopDecision.atEndOfFile(numberOfLoops: 0, loopsDone: 0, fileFrames: 10), .end)
        XCTAssertEqual(LoopDecision.atEndOfFile(numberOfLoops: 2, loopsDone: 0, fileFrames: 10), .rewind)
        XCTAssertEqual(LoopDecision.atEndOfFile(numberOfLoops: 2, loopsDone: 1, fileFrames: 10), .rewind)
        XCTAssertEqual(LoopDecision.atEndOfFile(numberOfLoops: 2, loopsDone: 2, fileFrames: 10), .end)
        XCTAssertEqual(LoopDecision.atEndOfFile(numberOfLoops: -1, loopsDone: 1_000_000, fileFrames: 10), .rewind)
        XCTAssertEqual(LoopDecision.atEndOfFile(numberOfLoops: -1, loopsDone: 0, fileFrames: 0), .end, "an empty file")
    }

    func testCommandsPack() {
        for kind in [PlaybackRequest.Kind.pause, .playNow, .playAtFrame, .playAtClock] {
            let command = PlaybackRequest(sequence: 0xAB_CDEF, kind: kind, frame: 0xFFFF_FFFF)
            XCTAssertEqual(PlaybackRequest(packed: command.packed), command)
        }
        XCTAssertNotEqual(PlaybackRequest(sequence: 1, kind: .playNow).packed, PlaybackRequest(sequence: 2, kind: .playNow).packed)
    }

    func testBlocksFillTheRingWithoutWrapping() {
        let blocks = PlaybackRing.blockCount(seconds: 2, sampleRate: 48_000)
        XCTAssertEqual(blocks, 24)
        XCTAssertEqual(PlaybackRing.blockByteCount(channels: 2), 48 + 4_096 * 2 * 4)
        XCTAssertEqual(PlaybackRing.blockCount(seconds: 0, sampleRate: 48_000), 4)
    }

    /// The header's fields are what is copied to and from the ring; the room it takes keeps the
    /// samples after it 16-byte aligned.
    func testTheBlockHeaderKeepsTheSamplesAligned() {
        XCTAssertEqual(MemoryLayout<PlaybackBlockHeader>.size, PlaybackBlockHeader.fieldByteCount)
        XCTAssertGreaterThanOrEqual(PlaybackBlockHeader.byteCount, PlaybackBlockHeader.fieldByteCount)
        XCTAssertEqual(PlaybackBlockHeader.byteCount % 16, 0)
    }

    /// A block's file position at each output frame: the identity when it plays as it is;
    /// through a converter, linear in integers from `position` to `endPosition`.
    func testABlockMapsItsOutputFramesToFileFrames() {
        let direct = PlaybackBlockHeader(generation: 0, position: 1_000, frames: 4_096)
        XCTAssertEqual(direct.endPosition, 5_096)
        XCTAssertEqual((0...4_096).map { direct.position(atOffset: $0) }, (0...4_096).map { 1_000 + Int64($0) })
        // Rate 2: 4096 output frames cover 8192 file frames.
        let fast = PlaybackBlockHeader(generation: 0, position: 8_192, endPosition: 16_384, frames: 4_096)
        XCTAssertEqual(fast.position(atOffset: 0), 8_192)
        XCTAssertEqual(fast.position(atOffset: 1), 8_194)
        XCTAssertEqual(fast.position(atOffset: 4_096), 16_384)
        // Rate 0.5: two output frames per file frame, rounded down.
        let slow = PlaybackBlockHeader(generation: 0, position: 10, endPosition: 2_058, frames: 4_096)
        XCTAssertEqual([0, 1, 2, 3, 4_095, 4_096].map { slow.position(atOffset: $0) }, [10, 10, 11, 11, 2_057, 2_058])
        let end = PlaybackBlockHeader(generation: 0, position: 500, frames: 0, flags: PlaybackBlockHeader.endOfPlayback)
        XCTAssertEqual(end.position(atOffset: 0), 500)
    }
}

/// Volume and pan: the ramp and the pan laws.
final class GainRampTests: XCTestCase {
    func testARampMovesInEqualStepsAndLandsOnTheTarget() {
        var ramp = GainRamp(gain: 1)
        ramp.retarget(0.5, frames: 480)
        let gains = (0..<480).map { _ in ramp.next() }
        XCTAssertEqual(gains.last, 0.5)
        XCTAssertFalse(ramp.isRamping)
        XCTAssertEqual(ramp.next(), 0.5)
        var previous: Float = 1
        for gain in gains {
            XCTAssertLessThan(gain, previous)
            XCTAssertEqual(previous - gain, 0.5 / 480, accuracy: 1e-6, "equal steps: no zipper")
            previous = gain
        }
    }

    func testARetargetMidRampStartsFromWhereItIs() {
        var ramp = GainRamp(gain: 0)
        ramp.retarget(1, frames: 100)
        for _ in 0..<50 { _ = ramp.next() }
        ramp.retarget(0, frames: 100)
        let first = ramp.next()
        XCTAssertEqual(first, 0.5 - 0.005, accuracy: 1e-5)
        ramp.snap()
        XCTAssertEqual(ramp.next(), 0)
    }

    func testPanLaws() {
        // Mono to two ports: equal power.
        XCTAssertEqual(PanLaw.gain(volume: 1, pan: 0, channels: 1, ports: 2, port: 0), Float(0.5).squareRoot(), accuracy: 1e-6)
        XCTAssertEqual(PanLaw.gain(volume: 1, pan: 0, channels: 1, ports: 2, port: 1), Float(0.5).squareRoot(), accuracy: 1e-6)
        XCTAssertEqual(PanLaw.gain(volume: 1, pan: -1, channels: 1, ports: 2, port: 0), 1)
        XCTAssertEqual(PanLaw.gain(volume: 1, pan: -1, channels: 1, ports: 2, port: 1), 0, accuracy: 1e-7)
        for pan in stride(from: Float(-1), through: 1, by: 0.25) {
            let left = PanLaw.gain(volume: 1, pan: pan, channels: 1, ports: 2, port: 0)
            let right = PanLaw.gain(volume: 1, pan: pan, channels: 1, ports: 2, port: 1)
            XCTAssertEqual(left * left + right * right, 1, accuracy: 1e-6, "constant power at \(pan)")
        }
        // Stereo: balance.
        XCTAssertEqual(PanLaw.gain(volume: 0.5, pan: 0, channels: 2, ports: 2, port: 0), 0.5)
        XCTAssertEqual(PanLaw.gain(volume: 1, pan: -1, channels: 2, ports: 2, port: 1), 0)
        XCTAssertEqual(PanLaw.gain(volume: 1, pan: -1, channels: 2, ports: 2, port: 0), 1)
        XCTAssertEqual(PanLaw.gain(volume: 1, pan: 0.5, channels: 2, ports: 2, port: 0), 0.5)
        XCTAssertEqual(PanLaw.gain(volume: 1, pan: 0.5, channels: 2, ports: 2, port: 1), 1)
        // Other layouts: the volume alone; out-of-range values clamped.
        XCTAssertEqual(PanLaw.gain(volume: 0.25, pan: -1, channels: 4, ports: 4, port: 3), 0.25)
        XCTAssertEqual(PanLaw.gain(volume: 2, pan: 0, channels: 1, ports: 1, port: 0), 1)
    }
}

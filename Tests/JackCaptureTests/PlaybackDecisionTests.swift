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
        for kind in [PlayerCommand.Kind.pause, .playNow, .playAtFrame, .playAtClock] {
            let command = PlayerCommand(sequence: 0xAB_CDEF, kind: kind, frame: 0xFFFF_FFFF)
            XCTAssertEqual(PlayerCommand(packed: command.packed), command)
        }
        XCTAssertNotEqual(PlayerCommand(sequence: 1, kind: .playNow).packed, PlayerCommand(sequence: 2, kind: .playNow).packed)
    }

    func testBlocksFillTheRingWithoutWrapping() {
        let blocks = PlaybackRing.blockCount(seconds: 2, sampleRate: 48_000)
        XCTAssertEqual(blocks, 24)
        XCTAssertEqual(PlaybackRing.blockByteCount(channels: 2), 32 + 4_096 * 2 * 4)
        XCTAssertEqual(PlaybackRing.blockCount(seconds: 0, sampleRate: 48_000), 4)
    }
}

import Foundation
import Testing
@testable import JackCapture

@Suite("A session take's status and points from its own segment of the run")
struct SessionTakeSegmentTests {
    /// A segment of `frames` frames from take position `position`, with `lost` (positions counted
    /// from its start).
    static func segment(_ index: Int, at position: Int64, frames: Int64, lost: [LostSpan] = [], isLast: Bool = false) -> TakeSegment {
        TakeSegment(index: index, splitBoundary: nil, isLast: isLast, position: position, frames: frames,
                    firstFrameTime: nil, endFrameTime: nil, files: [], lostSpans: lost, channelLevels: [])
    }

    /// The run of the failure seen under load: `--split 2s --for 5s` made four takes; the second
    /// lost 1024 frames at 14117 with an uncertain period after it. The run's outcome is `lostFrames`,
    /// the last take holds nothing lost and must be logged complete.
    @Test("a loss in an earlier take does not mark the last one")
    func lastTakeIsNotMarkedByAnEarlierLoss() {
        let events: [CaptureEvent] = [
            .framesSkipped(position: 60_000 + 14_117, frames: 1_024),
            .placementUncertain(position: 60_000 + 15_141, frames: 1_024),
        ]
        let second = Self.segment(1, at: 60_000, frames: 96_000, lost: [LostSpan(position: 14_117, frames: 1_024)])
        let last = Self.segment(3, at: 252_000, frames: 48_000, isLast: true)
        #expect(SessionTakeSegment.status(of: second, events: events) == .framesLost)
        #expect(SessionTakeSegment.status(ofLast: last, outcome: .lostFrames, diskFull: false, events: events) == .complete)
        #expect(SessionTakeSegment.status(ofLast: last, outcome: .placementUncertain, diskFull: false, events: events) == .complete)
    }

    @Test("the last take's own losses and uncertain periods still give its status")
    func lastTakeOwnAccount() {
        let lost = Self.segment(3, at: 252_000, frames: 48_000, lost: [LostSpan(position: 47_000, frames: 1_000)], isLast: true)
        #expect(SessionTakeSegment.status(ofLast: lost, outcome: .lostFrames, diskFull: false, events: []) == .framesLost)
        let last = Self.segment(3, at: 252_000, frames: 48_000, isLast: true)
        let uncertain: [CaptureEvent] = [.placementUncertain(position: 260_000, frames: 1_024)]
        #expect(SessionTakeSegment.status(ofLast: last, outcome: .placementUncertain, diskFull: false, events: uncertain)
            == .placementUncertain)
        // An uncertain period past the last frame: no frame of the files is uncertain.
        let past: [CaptureEvent] = [.placementUncertain(position: 300_000, frames: 1_024)]
        #expect(SessionTakeSegment.status(ofLast: last, outcome: .placementUncertain, diskFull: false, events: past) == .complete)
    }

    @Test("how the run ended still says how the last take ended")
    func endingOutcomes() {
        let last = Self.segment(3, at: 252_000, frames: 48_000, isLast: true)
        #expect(SessionTakeSegment.status(ofLast: last, outcome: .lostFrames, diskFull: true, events: []) == .diskFull)
        #expect(SessionTakeSegment.status(ofLast: last, outcome: .complete, diskFull: true, events: []) == .diskFull)
        #expect(SessionTakeSegment.status(ofLast: last, outcome: .serverShutDown, diskFull: false, events: []) == .serverShutdown)
        #expect(SessionTakeSegment.status(ofLast: last, outcome: .sampleRateChanged(from: 48_000, to: 44_100), diskFull: false,
                                          events: []) == .interrupted)
        #expect(SessionTakeSegment.status(ofLast: last, outcome: .cancelled, diskFull: false, events: []) == .discarded)
    }

    @Test("a dropout or master-clock jump marks the take that holds it, none past the last take's last frame")
    func pointsBelongToTheirTake() {
        let first = Self.segment(0, at: 0, frames: 96_000)
        let last = Self.segment(1, at: 96_000, frames: 48_000, isLast: true)
        let atSplit: [CaptureEvent] = [.linkDropout(position: 96_000, frames: 512)]
        #expect(SessionTakeSegment.status(of: first, events: atSplit) == .complete)
        #expect(SessionTakeSegment.status(ofLast: last, outcome: .lostFrames, diskFull: false, events: atSplit) == .framesLost)
        #expect(!SessionTakeSegment.holds(96_000, in: first))
        #expect(SessionTakeSegment.holds(95_999, in: first))
        #expect(SessionTakeSegment.holds(143_999, in: last))
        // At the stop frame (the xruns of a server loaded while the files close land there): past
        // the last frame, in no take's entry, so in no take's status.
        #expect(!SessionTakeSegment.holds(144_000, in: last))
        let atStop: [CaptureEvent] = [.masterClockJump(position: 144_000, frames: 256)]
        #expect(SessionTakeSegment.status(ofLast: last, outcome: .lostFrames, diskFull: false, events: atStop) == .complete)
        let inside: [CaptureEvent] = [.masterClockJump(position: 140_000, frames: 256)]
        #expect(SessionTakeSegment.status(ofLast: last, outcome: .lostFrames, diskFull: false, events: inside) == .framesLost)
        // A run of one take: every point is the take's.
        let only = Self.segment(0, at: 0, frames: 48_000, isLast: true)
        let early: [CaptureEvent] = [.linkDropout(position: 40_000, frames: 512)]
        #expect(SessionTakeSegment.status(ofLast: only, outcome: .lostFrames, diskFull: false, events: early) == .framesLost)
    }
}

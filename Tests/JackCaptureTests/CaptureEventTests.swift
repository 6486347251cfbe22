import Atomics
import Testing
@testable import JackCapture

@Suite("Capture events through their rings")
struct CaptureEventTests {
    @Test("the process callback's kind constants match the record kinds")
    func kindConstants() {
        #expect(CaptureEventRecord.startedKind == CaptureEventRecord.Kind.started.rawValue)
        #expect(CaptureEventRecord.pausedKind == CaptureEventRecord.Kind.paused.rawValue)
        #expect(CaptureEventRecord.resumedKind == CaptureEventRecord.Kind.resumed.rawValue)
        #expect(CaptureEventRecord.stoppedKind == CaptureEventRecord.Kind.stopped.rawValue)
        #expect(CaptureEventRecord.overrunKind == CaptureEventRecord.Kind.overrun.rawValue)
        #expect(CaptureEventRecord.framesSkippedKind == CaptureEventRecord.Kind.framesSkipped.rawValue)
        #expect(CaptureEventRecord.lateCopyKind == CaptureEventRecord.Kind.lateCopy.rawValue)
        #expect(CaptureEventRecord.splitKind == CaptureEventRecord.Kind.fileSplit.rawValue)
        #expect(CaptureEventRecord.placementUncertainKind == CaptureEventRecord.Kind.placementUncertain.rawValue)
        #expect(CaptureEventRecord.linkDropoutKind == CaptureEventRecord.Kind.linkDropout.rawValue)
        #expect(CaptureEventRecord.masterClockJumpKind == CaptureEventRecord.Kind.masterClockJump.rawValue)
        #expect(CaptureEventRecord.transportRolledKind == CaptureEventRecord.Kind.transportRolled.rawValue)
        #expect(CaptureEventRecord.triggeredKind == CaptureEventRecord.Kind.triggered.rawValue)
        #expect(CaptureEventRecord.inputChangedKind == CaptureEventRecord.Kind.inputChanged.rawValue)
        #expect(CaptureEventRecord.clockRenumberedKind == CaptureEventRecord.Kind.clockRenumbered.rawValue)
    }

    @Test("fixed records and named records come back as the events they stand for, in order")
    func roundTrip() {
        let ring = RingBuffer(capacity: 4_096)
        let dropped = UnsafeAtomic<Int>.create(0)
        defer { ring.deallocate(); dropped.destroy() }
        var paused = CaptureEventRecord(kind: CaptureEventRecord.pausedKind, frameTime: 4_000_000_000, position: 12_345, value: 0, extra: 0)
        withUnsafePointer(to: &paused) { ring.publish($0, dropped: dropped) }
        ring.publish(CaptureEventRecord(kind: CaptureEventRecord.Kind.portDisconnected.rawValue, frameTime: 7, position: 8,
                                        value: 3, extra: 0), text: "synth:out_1", dropped: dropped)
        ring.publish(CaptureEventRecord(kind: CaptureEventRecord.Kind.sampleRateChanged.rawValue, frameTime: 9, position: 10,
                                        value: 44_100, extra: 48_000), text: "", dropped: dropped)
        var dropout = CaptureEventRecord(kind: CaptureEventRecord.linkDropoutKind, frameTime: 11, position: 79_872, value: 44_032, extra: 0)
        withUnsafePointer(to: &dropout) { ring.publish($0, dropped: dropped) }
        var jump = CaptureEventRecord(kind: CaptureEventRecord.masterClockJumpKind, frameTime: 12, position: 96_256, value: -2_048, extra: 0)
        withUnsafePointer(to: &jump) { ring.publish($0, dropped: dropped) }
        var step = CaptureEventRecord(kind: CaptureEventRecord.clockRenumberedKind, frameTime: 13, position: 111_616, value: -1_536, extra: 0)
        withUnsafePointer(to: &step) { ring.publish($0, dropped: dropped) }
        let drained = ring.drainEvents(withText: true)
        let events = drained.compactMap { CaptureEvent(record: $0.0, text: $0.1) }
        // A connection is no event until it is placed on its cycle (`ConnectionPlacement`).
        #expect(drained.compactMap { ConnectionPlacement.announcement(from: $0.0, source: $0.1) } == [
            .init(channel: 3, source: "synth:out_1", connected: false, hardware: false, frameTime: 7, position: 8),
        ])
        #expect(events == [
            .paused(frameTime: 4_000_000_000, position: 12_345),
            .sampleRateChanged(from: 48_000, to: 44_100, position: 10),
            .linkDropout(position: 79_872, frames: 44_032),
            .masterClockJump(position: 96_256, frames: -2_048),
            .clockRenumbered(position: 111_616, frames: -1_536),
        ])
        #expect(ring.drainEvents(withText: true).isEmpty)
    }

    @Test("a full ring drops the event and counts it")
    func fullRing() {
        let ring = RingBuffer(capacity: CaptureEventRecord.byteCount * 2)
        let dropped = UnsafeAtomic<Int>.create(0)
        defer { ring.deallocate(); dropped.destroy() }
        var record = CaptureEventRecord(kind: CaptureEventRecord.overrunKind, frameTime: 0, position: 0, value: 256, extra: 0)
        for _ in 0..<3 { withUnsafePointer(to: &record) { ring.publish($0, dropped: dropped) } }
        #expect(dropped.load(ordering: .relaxed) == 1)
        #expect(ring.drainEvents(withText: false).count == 2)
    }

    @Test("descriptions name the frame and the take position")
    func descriptions() {
        #expect(CaptureEvent.paused(frameTime: 480, position: 96).description == "paused at JACK frame 480 (take frame 96)")
        #expect(CaptureEvent.portDisconnected(channel: 0, source: "a:b", frameTime: 1, position: 2, timing: .near).description
            == "channel 1: a:b disconnected near JACK frame 1 (take frame 2); recording silence")
        #expect(CaptureEvent.portConnected(channel: 0, source: "a:b", frameTime: 1, position: 2, timing: .exact(uncertainFrames: 0))
            .description == "channel 1: a:b connected at JACK frame 1 (take frame 2)")
    }
}

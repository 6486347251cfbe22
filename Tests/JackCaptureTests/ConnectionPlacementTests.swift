import Testing
@testable import JackCapture

@Suite("Connections placed on the cycle they took effect in")
struct ConnectionPlacementTests {
    typealias Announcement = ConnectionPlacement.Announcement
    typealias Switch = ConnectionPlacement.Switch

    static let horizon = 7 * 256

    static func announced(_ channel: Int, _ source: String, connected: Bool = true, hardware: Bool = false,
                          at frame: UInt32, position: Int64 = 0) -> Announcement {
        Announcement(channel: channel, source: source, connected: connected, hardware: hardware, frameTime: frame, position: position)
    }

    @Test("an announcement takes the frame and take position of the cycle its channel switched in")
    func paired() {
        var placement = ConnectionPlacement()
        placement.announce(Self.announced(0, "sig:out_1", connected: false, at: 10_100, position: 9_000))
        #expect(placement.release(lastCycleEnd: 10_240, horizon: Self.horizon).isEmpty, "held until its cycle is planned")
        placement.observe(Switch(channel: 0, frameTime: 10_240, position: 9_728, frames: 256))
        #expect(placement.release(lastCycleEnd: 11_264, horizon: Self.horizon) == [
            .portDisconnected(channel: 0, source: "sig:out_1", frameTime: 10_240, position: 9_728, timing: .exact(uncertainFrames: 0)),
        ])
        #expect(placement.isEmpty)
    }

    @Test("a hardware input's connection says its first cycle may be older audio; its disconnection does not")
    func hardware() {
        var placement = ConnectionPlacement()
        placement.announce(Self.announced(2, "system:capture_3", hardware: true, at: 500))
        placement.observe(Switch(channel: 2, frameTime: 512, position: 100, frames: 256))
        placement.announce(Self.announced(2, "system:capture_3", connected: false, hardware: true, at: 5_000))
        placement.observe(Switch(channel: 2, frameTime: 5_120, position: 4_708, frames: 256))
        #expect(placement.release(lastCycleEnd: 6_000, horizon: Self.horizon) == [
            .portConnected(channel: 2, source: "system:capture_3", frameTime: 512, position: 100, timing: .exact(uncertainFrames: 256)),
            .portDisconnected(channel: 2, source: "system:capture_3", frameTime: 5_120, position: 4_708,
                              timing: .exact(uncertainFrames: 0)),
        ])
    }

    @Test("changes the server applied in one switch all land on it: a source swapped for another")
    func appliedTogether() {
        var placement = ConnectionPlacement()
        placement.announce(Self.announced(1, "a:out", connected: false, at: 1_000))
        placement.announce(Self.announced(1, "b:out", at: 1_010))
        placement.observe(Switch(channel: 1, frameTime: 1_024, position: 512, frames: 256))
        #expect(placement.release(lastCycleEnd: 1_800, horizon: Self.horizon) == [
            .portDisconnected(channel: 1, source: "a:out", frameTime: 1_024, position: 512, timing: .exact(uncertainFrames: 0)),
            .portConnected(channel: 1, source: "b:out", frameTime: 1_024, position: 512, timing: .exact(uncertainFrames: 0)),
        ])
    }

    @Test("changes applied in successive cycles each land on their own")
    func successive() {
        var placement = ConnectionPlacement()
        placement.announce(Self.announced(0, "a:out", connected: false, at: 1_000))
        placement.announce(Self.announced(0, "a:out", at: 1_100))
        placement.observe(Switch(channel: 0, frameTime: 1_024, position: 0, frames: 256))
        placement.observe(Switch(channel: 0, frameTime: 1_280, position: 256, frames: 256))
        #expect(placement.release(lastCycleEnd: 2_000, horizon: Self.horizon) == [
            .portDisconnected(channel: 0, source: "a:out", frameTime: 1_024, position: 0, timing: .exact(uncertainFrames: 0)),
            .portConnected(channel: 0, source: "a:out", frameTime: 1_280, position: 256, timing: .exact(uncertainFrames: 0)),
        ])
    }

    @Test("an announcement older than a switch could be goes out near its frame, not on a later change's")
    func orphan() {
        var placement = ConnectionPlacement()
        // Disconnected while the take was paused (no switch placed), connected again later.
        placement.announce(Self.announced(0, "a:out", connected: false, at: 1_000, position: 500))
        placement.announce(Self.announced(0, "a:out", at: 3_000, position: 500))
        placement.observe(Switch(channel: 0, frameTime: 3_072, position: 512, frames: 256))
        #expect(placement.release(lastCycleEnd: 3_000 + UInt32(Self.horizon), horizon: Self.horizon) == [
            .portDisconnected(channel: 0, source: "a:out", frameTime: 1_000, position: 500, timing: .near),
            .portConnected(channel: 0, source: "a:out", frameTime: 3_072, position: 512, timing: .exact(uncertainFrames: 0)),
        ])
    }

    @Test("a notification thread that ran late is paired all the same, in either order of arrival")
    func lateAnnouncement() {
        var placement = ConnectionPlacement()
        placement.observe(Switch(channel: 3, frameTime: 2_048, position: 1_000, frames: 256))
        #expect(placement.release(lastCycleEnd: 2_304, horizon: Self.horizon).isEmpty)
        placement.announce(Self.announced(3, "c:out", at: 2_400))
        #expect(placement.release(lastCycleEnd: 2_560, horizon: Self.horizon) == [
            .portConnected(channel: 3, source: "c:out", frameTime: 2_048, position: 1_000, timing: .exact(uncertainFrames: 0)),
        ])
    }

    @Test("another channel's switch is not taken")
    func otherChannel() {
        var placement = ConnectionPlacement()
        placement.announce(Self.announced(0, "a:out", at: 1_000, position: 700))
        placement.observe(Switch(channel: 1, frameTime: 1_024, position: 724, frames: 256))
        #expect(placement.release(lastCycleEnd: 1_000 + UInt32(Self.horizon), horizon: Self.horizon).isEmpty)
        #expect(placement.release(lastCycleEnd: 1_001 + UInt32(Self.horizon), horizon: Self.horizon) == [
            .portConnected(channel: 0, source: "a:out", frameTime: 1_000, position: 700, timing: .near),
        ])
        #expect(!placement.isEmpty, "the switch may still find its announcement")
        #expect(placement.release(lastCycleEnd: 1_025 + UInt32(Self.horizon), horizon: Self.horizon).isEmpty)
        #expect(placement.isEmpty, "the switch alone is let go, unsaid")
    }

    @Test("with no cycle to come, everything goes out as it stands")
    func releasedAll() {
        var placement = ConnectionPlacement()
        placement.announce(Self.announced(0, "a:out", connected: false, at: 1_000, position: 700))
        placement.observe(Switch(channel: 5, frameTime: 1_024, position: 724, frames: 256))
        #expect(placement.release(lastCycleEnd: nil, horizon: Self.horizon) == [
            .portDisconnected(channel: 0, source: "a:out", frameTime: 1_000, position: 700, timing: .near),
        ])
        #expect(placement.isEmpty)
    }

    @Test("JACK's frame counter wrapping around does not unpair anything")
    func wrapping() {
        var placement = ConnectionPlacement()
        placement.announce(Self.announced(0, "a:out", at: UInt32.max - 100))
        placement.observe(Switch(channel: 0, frameTime: 156, position: 9, frames: 256))
        #expect(placement.release(lastCycleEnd: 412, horizon: Self.horizon) == [
            .portConnected(channel: 0, source: "a:out", frameTime: 156, position: 9, timing: .exact(uncertainFrames: 0)),
        ])
    }

    @Test("records from the rings: the hardware flag and the channel come apart")
    func records() {
        let record = CaptureEventRecord(kind: CaptureEventRecord.Kind.portConnected.rawValue, frameTime: 5, position: 6,
                                        value: 1_023 | CaptureEventRecord.hardwareSourceFlag, extra: 16)
        #expect(ConnectionPlacement.announcement(from: record, source: "system:capture_1")
            == Self.announced(1_023, "system:capture_1", hardware: true, at: 5, position: 6))
        let change = CaptureEventRecord(kind: CaptureEventRecord.inputChangedKind, frameTime: 7, position: 8, value: 4, extra: 1_024)
        #expect(ConnectionPlacement.change(from: change) == Switch(channel: 4, frameTime: 7, position: 8, frames: 1_024))
        #expect(ConnectionPlacement.change(from: record) == nil)
        #expect(CaptureEvent(record: change, text: "") == nil, "never an event of its own")
    }
}

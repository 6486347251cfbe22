import JackCapture
import Testing
@testable import jcap

@Suite("Meter snapshots")
struct MeterSnapshotTests {
    @Test("channel names drop the client where that keeps them apart")
    func names() {
        #expect(MeterSnapshot.channelNames(sources: ["system:capture_1", "system:capture_2"]) == ["capture_1", "capture_2"])
        #expect(MeterSnapshot.channelNames(sources: ["a:out_1", "b:out_1"]) == ["a:out_1", "b:out_1"])
    }

    @Test("the control core's state as the console draws it")
    func fromControlState() {
        var state = ControlState(mode: .waiting, sampleRate: 48_000)
        state.waitsForPorts = true
        state.meters = [.init(name: "system:capture_1", reading: .silent), .init(name: "system:capture_2", reading: .silent)]
        var snapshot = MeterSnapshot(state, shortensNames: true)
        #expect(snapshot.state == .waitingForPorts)
        #expect(snapshot.channels.map(\.name) == ["capture_1", "capture_2"])
        #expect(snapshot.title == nil)

        state.waitsForPorts = false
        state.framesToStart = 4_800
        #expect(MeterSnapshot(state, shortensNames: true).state == .countdown(frames: 4_800))
        state.mode = .stopping
        #expect(MeterSnapshot(state, shortensNames: true).state == .countdown(frames: 4_800),
                "a waiting take being cancelled never recorded: not shown as recording")
        state.position = 96_000
        snapshot = MeterSnapshot(state, shortensNames: false)
        #expect(snapshot.state == .recording, "a take being finished still shows as recording")
        #expect(snapshot.elapsedFrames == 96_000)
        #expect(snapshot.channels.map(\.name) == ["system:capture_1", "system:capture_2"])

        state.mode = .ready
        state.sessionName = "band"
        state.recordingSecondsLeft = 3_723
        state.nextTake = 7
        // Issue 22: disk time in the engineer's words (it read like a clock), the next take for slating.
        #expect(MeterSnapshot(state, shortensNames: false).title == "session band, next take 7, 1 h 02 min of recording left")
        state.mode = .recording
        state.nextTake = nil
        state.currentTake = 7
        #expect(MeterSnapshot(state, shortensNames: false).title == "session band, take 7, 1 h 02 min of recording left")
        state.mode = .paused
        #expect(MeterSnapshot(state, shortensNames: false).state == .paused)
        state.mode = .playing
        #expect(MeterSnapshot(state, shortensNames: false).state == .playing)
        state.mode = .finished
        #expect(MeterSnapshot(state, shortensNames: false).state == .finished)
    }
}

import Testing
@testable import jcap

@Suite("Meter snapshots")
struct MeterSnapshotTests {
    @Test("channel names drop the client where that keeps them apart")
    func names() {
        #expect(MeterSnapshot.channelNames(sources: ["system:capture_1", "system:capture_2"]) == ["capture_1", "capture_2"])
        #expect(MeterSnapshot.channelNames(sources: ["a:out_1", "b:out_1"]) == ["a:out_1", "b:out_1"])
    }
}

import Foundation
import Testing
@testable import JackCapture

@Suite("The core's watch on each track: clip latches and dead tracks")
struct TrackWatchTests {
    static func meters(_ peaks: [Float], clips: [Int64]? = nil) -> [ControlState.TrackMeter] {
        peaks.indices.map { index in
            let reading = MeterReading(averagePower: peaks[index] - 6, peakPower: peaks[index], peakHold: peaks[index],
                                       highestPeak: peaks[index], clipCount: clips?[index] ?? 0)
            return ControlState.TrackMeter(name: "T\(index + 1)", reading: reading)
        }
    }

    @Test("a peak at full scale latches CLIP until cleared, with no take's clip count")
    func clipLatch() {
        let watch = TrackWatch()
        var meters = Self.meters([-12, 3])
        _ = watch.watch(&meters, connected: [true, true], recentPeaks: [-12, 3], meteredFrames: 1024)
        #expect(meters.map(\.clipped) == [false, true])
        meters = Self.meters([-12, -20])
        _ = watch.watch(&meters, connected: [true, true], recentPeaks: [-12, -20], meteredFrames: 2048)
        #expect(meters.map(\.clipped) == [false, true], "latched")
        watch.clearClips()
        meters = Self.meters([-12, -20])
        _ = watch.watch(&meters, connected: [true, true], recentPeaks: [-12, -20], meteredFrames: 3072)
        #expect(meters.map(\.clipped) == [false, false], "cleared")
        meters = Self.meters([-12, 0.5], clips: [4, 0])
        _ = watch.watch(&meters, connected: [true, true], recentPeaks: [-12, -20], meteredFrames: 4096)
        #expect(meters.map(\.clipped) == [true, false], "a take's clip count that rises latches too")
    }

    @Test("unpatched at once; silent after 2 s while another track carries signal; back to life told")
    func deadTracks() {
        let watch = TrackWatch()
        let start = Date()
        var meters = Self.meters([-12, -160, -160])
        var changes = watch.watch(&meters, connected: [true, true, false], recentPeaks: [-12, -160, -160], meteredFrames: 5120, now: start)
        #expect(meters.map(\.dead) == [nil, nil, .unpatched])
        #expect(changes.map(\.index) == [2])
        changes = watch.watch(&meters, connected: [true, true, false], recentPeaks: [-12, -160, -160], meteredFrames: 6144, now: start + 1.9)
        #expect(meters.map(\.dead) == [nil, nil, .unpatched], "silent, not yet for 2 s")
        changes = watch.watch(&meters, connected: [true, true, false], recentPeaks: [-12, -160, -160], meteredFrames: 7168, now: start + 2.1)
        #expect(meters.map(\.dead) == [nil, .silent, .unpatched])
        #expect(changes.map(\.index) == [1])
        changes = watch.watch(&meters, connected: [true, true, true], recentPeaks: [-12, -30, -160], meteredFrames: 8192, now: start + 2.2)
        #expect(meters.map(\.dead) == [nil, nil, .silent], "signal again; patched now, but silent all along")
        #expect(changes.map(\.index) == [1, 2])
        changes = watch.watch(&meters, connected: [true, true, true], recentPeaks: [-160, -160, -160], meteredFrames: 9216, now: start + 9)
        changes = watch.watch(&meters, connected: [true, true, true], recentPeaks: [-160, -160, -160], meteredFrames: 10240, now: start + 12)
        #expect(meters.map(\.dead) == [nil, nil, nil], "all silent: nothing plays, no track is dead")
    }
}

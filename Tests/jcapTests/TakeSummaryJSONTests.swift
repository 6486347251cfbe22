import Foundation
@testable import JackCapture
@testable import jcap
import Testing

/// `--meter json`: the fields every line carries, and the summary line after each take.
@Suite("Meter JSON take summaries")
struct TakeSummaryJSONTests {
    static func object(_ line: String) throws -> [String: Any] {
        #expect(!line.contains("\n"))
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("every line carries session, take and disk time left, null without a session")
    func lineFields() throws {
        var snapshot = MeterSnapshots.snapshot(channels: 2)
        let plain = try Self.object(MeterJSONLine(snapshot).encoded())
        #expect(plain["state"] as? String == "recording")
        #expect(plain.keys.contains("session") && plain["session"] is NSNull)
        #expect(plain.keys.contains("take") && plain["take"] is NSNull)
        #expect(plain.keys.contains("disk_seconds_left") && plain["disk_seconds_left"] is NSNull)
        snapshot.sessionName = "band"
        snapshot.takeNumber = 7
        snapshot.diskSecondsLeft = 3_723.4
        let session = try Self.object(MeterJSONLine(snapshot).encoded())
        #expect(session["session"] as? String == "band")
        #expect(session["take"] as? Int == 7)
        #expect(session["disk_seconds_left"] as? Double == 3_723)
    }

    @Test("a session's control state gives the line its session, take and disk time")
    func fromControlState() throws {
        var state = ControlState(mode: .recording, sampleRate: 48_000)
        state.sessionName = "band"
        state.currentTake = 3
        state.recordingSecondsLeft = 60
        let snapshot = MeterSnapshot(state, shortensNames: false)
        #expect(snapshot.sessionName == "band" && snapshot.takeNumber == 3 && snapshot.diskSecondsLeft == 60)
    }

    static func report() throws -> TakeReport {
        let format = try RecordingSettings(format: .float).resolveFormat(forPath: "take.wav")
        let segment = TakeSegment(index: 0, splitBoundary: nil, isLast: true, position: 0, frames: 96_000, firstFrameTime: 1_000,
                                  endFrameTime: 98_024,
                                  files: [TakeFileReport(path: "/rec/take.wav", channels: [0, 1], frames: 96_000)],
                                  lostSpans: [LostSpan(position: 4_096, frames: 1_024)],
                                  channelLevels: [])
        return TakeReport(
            outcome: .lostFrames, path: "/rec/take.wav", format: format, sampleRate: 48_000, sources: ["sig:out_1", "sig:out_2"],
            portNames: ["jcap:in_1", "jcap:in_2"], fileSampleRate: 48_000, fileFrames: 96_000, frames: 96_000, startFrame: 1_000,
            lostSpans: [LostSpan(position: 4_096, frames: 1_024)], overrunFrames: 0, skippedFrames: 1_024, xruns: 2,
            channelLevels: [ChannelLevels(highestPeak: -12.041, clipCount: 0), ChannelLevels(highestPeak: -.infinity, clipCount: 3)],
            events: [.started(frameTime: 1_000), .lateCopy(position: 8_192, frames: 1_024),
                     .placementUncertain(position: 20_480, frames: 1_024), .linkDropout(position: 30_720, frames: 45_056),
                     .clockRenumbered(position: 50_000, frames: -1_536),
                     .paused(frameTime: 11_000, position: 10_000), .resumed(frameTime: 13_024, position: 10_000),
                     .portConnected(channel: 0, source: "sig:out_1", frameTime: 900, position: 0, timing: .near),
                     .portDisconnected(channel: 1, source: "sig:out_2", frameTime: 41_960, position: 40_960,
                                       timing: .exact(uncertainFrames: 0)),
                     .portConnected(channel: 1, source: "system:capture_2", frameTime: 61_000, position: 60_000,
                                    timing: .exact(uncertainFrames: 1_024))],
            segments: [segment], latencyAlignment: LatencyAlignment(latencies: [300, 1_000]))
    }

    @Test("a plain take's summary: outcome, file, start, frames, every reported span, pauses, xruns, levels")
    func plainTake() throws {
        let line = TakeSummaryJSON(try Self.report(), names: ["out_1", "out_2"]).encoded()
        let summary = try #require(try Self.object(line)["summary"] as? [String: Any])
        #expect(summary["outcome"] as? String == "frames lost")
        #expect(summary["session"] is NSNull && summary["take"] is NSNull)
        #expect(summary["start_frame"] as? Int == 1_000)
        #expect(summary["frames"] as? Int == 96_000)
        #expect(summary["sample_rate"] as? Int == 48_000)
        #expect(summary["xruns"] as? Int == 2)
        #expect(summary["lost"] as? [[String: Int]] == [["position": 4_096, "frames": 1_024]])
        #expect(summary["late"] as? [[String: Int]] == [["position": 8_192, "frames": 1_024]])
        #expect(summary["uncertain"] as? [[String: Int]] == [["position": 20_480, "frames": 1_024]])
        #expect(summary["dropouts"] as? [[String: Int]] == [["position": 30_720, "frames": 45_056]])
        #expect(summary["master_start_frame"] is NSNull)
        #expect(summary["master_jumps"] as? [[String: Int]] == [])
        #expect(summary["clock_steps"] as? [[String: Int]] == [["position": 50_000, "frames": -1_536]])
        #expect(summary["pauses"] as? [[String: Int]] == [["position": 10_000, "from_frame": 11_000, "to_frame": 13_024]])
        #expect(summary["lost_events"] as? Int == 0)
        // The connection made before the take's first frame is no change within it.
        let patching = try #require(summary["patching"] as? [[String: Any]])
        #expect(patching.map { $0["position"] as? Int } == [40_960, 60_000])
        #expect(patching.map { $0["channel"] as? Int } == [2, 2])
        #expect(patching.map { $0["source"] as? String } == ["sig:out_2", "system:capture_2"])
        #expect(patching.map { $0["connected"] as? Bool } == [false, true])
        #expect(patching.map { $0["exact"] as? Bool } == [true, true])
        #expect(patching[0]["uncertain_frames"] is NSNull && patching[1]["uncertain_frames"] as? Int == 1_024)
        let files = try #require(summary["files"] as? [[String: Any]])
        #expect(files.count == 1 && files[0]["path"] as? String == "/rec/take.wav")
        #expect(files[0]["channels"] as? [Int] == [1, 2] && files[0]["frames"] as? Int == 96_000)
        #expect(files[0]["position"] as? Int == 0)
        let channels = try #require(summary["channels"] as? [[String: Any]])
        #expect(channels.map { $0["name"] as? String } == ["out_1", "out_2"])
        #expect(channels.map { $0["source"] as? String } == ["sig:out_1", "sig:out_2"])
        #expect(channels.map { $0["aligned_latency"] as? Int } == [300, 1_000])
        #expect(channels.map { $0["highest_peak_db"] as? Double } == [-12.04, -160])
        #expect(channels.map { $0["clip_count"] as? Int } == [0, 3])
    }

    @Test("a session take's summary comes from its take log entry, files inside the session folder")
    func sessionTake() throws {
        var entry = TakeLogEntry(
            take: 12, status: .complete, startFrame: 5, sampleRate: 48_000, frames: 480,
            files: [TakeLogFile(path: "take-012-Kick.wav", tracks: ["Kick"], frames: 480),
                    TakeLogFile(path: "take-012-OH.wav", tracks: ["OH L", "OH R"], frames: 480)],
            tracks: [TakeLogTrack(name: "Kick", source: "sig:out_3", highestPeakDBFS: -6, clippedSamples: 0),
                     TakeLogTrack(name: "OH L", source: "sig:out_1"), TakeLogTrack(name: "OH R", source: "sig:out_2")],
            xruns: [TakeLogSpan(position: 100, frames: 0)])
        entry.late = [TakeLogSpan(position: 256, frames: 64)]
        entry.uncertain = [TakeLogSpan(position: 320, frames: 64)]
        entry.patching = [TakeLogPatch(position: 200, track: "OH R", source: "sig:out_2", connected: false, exact: true)]
        let summary = try #require(try Self.object(TakeSummaryJSON(entry, session: "band", folder: "/s/band").encoded())["summary"]
            as? [String: Any])
        #expect(summary["session"] as? String == "band" && summary["take"] as? Int == 12)
        #expect(summary["outcome"] as? String == "complete")
        #expect(summary["xruns"] as? Int == 1)
        #expect(summary["late"] as? [[String: Int]] == [["position": 256, "frames": 64]])
        #expect(summary["uncertain"] as? [[String: Int]] == [["position": 320, "frames": 64]])
        let patching = try #require(summary["patching"] as? [[String: Any]])
        #expect(patching.count == 1 && patching[0]["channel"] as? Int == 3 && patching[0]["position"] as? Int == 200)
        let files = try #require(summary["files"] as? [[String: Any]])
        #expect(files.map { $0["path"] as? String } == ["/s/band/take-012-Kick.wav", "/s/band/take-012-OH.wav"])
        #expect(files.map { $0["channels"] as? [Int] } == [[1], [2, 3]])
        let channels = try #require(summary["channels"] as? [[String: Any]])
        #expect(channels[0]["highest_peak_db"] as? Double == -6)
        #expect(channels[1]["highest_peak_db"] is NSNull && channels[1]["clip_count"] is NSNull)
    }
}

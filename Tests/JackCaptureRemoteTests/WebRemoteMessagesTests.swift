import Foundation
import JackCapture
import Testing
@testable import JackCaptureRemote

@Suite("Browser remote: what the page is sent")
struct WebRemoteMessagesTests {
    func json(_ value: some Encodable) throws -> [String: Any] {
        let text = WebRemoteFeed.json(value)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test func theStateWithEveryTrackAndNoInfinity() throws {
        var state = ControlState(mode: .recording, sampleRate: 48_000)
        state.sessionName = "band"
        state.currentTake = 7
        state.position = 96_000
        state.recordingSecondsLeft = 3_600
        state.xruns = 2
        state.lostFrames = 1_024
        state.armedTracks = ["Kick"]
        state.pendingStop = 7
        state.meters = [
            .init(name: "Kick", reading: MeterReading(averagePower: -23, peakPower: -20, peakHold: -19.5, highestPeak: -19.5, clipCount: 0)),
            .init(name: "Snare", reading: MeterReading(averagePower: -.infinity, peakPower: -.infinity, peakHold: -200,
                                                       highestPeak: -.infinity, clipCount: 3), dead: .unpatched),
        ]
        let sent = try json(WebRemoteMessages.state(state, revision: 42, refused: 5))
        #expect(sent["type"] as? String == "state")
        #expect(sent["revision"] as? Int == 42)
        #expect(sent["session"] as? String == "band")
        #expect(sent["mode"] as? String == "recording")
        #expect(sent["take"] as? Int == 7)
        #expect(sent["seconds"] as? Double == 2)
        #expect(sent["diskSecondsLeft"] as? Double == 3_600)
        #expect(sent["xruns"] as? Int == 2)
        #expect(sent["lostFrames"] as? Int == 1_024)
        #expect(sent["pendingStop"] as? Int == 7)
        #expect(sent["refusedMessages"] as? Int == 5)
        let tracks = try #require(sent["tracks"] as? [[String: Any]])
        #expect(tracks.map { $0["name"] as? String } == ["Kick", "Snare"])
        #expect(tracks.map { $0["armed"] as? Bool } == [true, false])
        #expect(tracks[0]["peak"] as? Double == -20)
        #expect(tracks[0]["hold"] as? Double == -19.5)
        #expect(tracks[0]["average"] as? Double == -23)
        // JSON has no infinity: silence is the meters' floor.
        #expect(tracks[1]["peak"] as? Double == -160)
        #expect(tracks[1]["hold"] as? Double == -160)
        #expect(tracks[1]["clipped"] as? Bool == true)
        #expect(tracks[1]["dead"] as? String == "unpatched")
    }

    @Test func theTakeListNewestFirstWithoutRemovedTakes() throws {
        let entries = [
            TakeLogEntry(take: 1, status: .complete, startTime: "2026-11-24T14:00:00Z", sampleRate: 48_000, frames: 96_000,
                         files: [TakeLogFile(path: "take-001-Kick.wav", tracks: ["Kick"])],
                         tracks: [TakeLogTrack(name: "Kick", source: "system:capture_1", highestPeakDBFS: -6.5)],
                         lost: [TakeLogSpan(position: 10, frames: 256), TakeLogSpan(position: 900, frames: 512)],
                         note: "best", mark: .circled),
            TakeLogEntry(take: 2, status: .discarded, sampleRate: 48_000),
            TakeLogEntry(take: 3, status: .recording, sampleRate: 48_000,
                         files: [TakeLogFile(path: "take-003-Kick.wav", tracks: ["Kick"])]),
        ]
        let sent = try json(WebRemoteMessages.takes(entries))
        let takes = try #require(sent["takes"] as? [[String: Any]])
        #expect(takes.map { $0["take"] as? Int } == [3, 1])
        #expect(takes[0]["status"] as? String == "recording")
        #expect(takes[1]["seconds"] as? Double == 2)
        #expect(takes[1]["peak"] as? Double == -6.5)
        #expect(takes[1]["lostFrames"] as? Int == 768)
        #expect(takes[1]["mark"] as? String == "circled")
        #expect(takes[1]["note"] as? String == "best")
        #expect(takes[1]["time"] as? String == "2026-11-24T14:00:00Z")
        let files = try #require(takes[1]["files"] as? [[String: Any]])
        #expect(files.map { $0["index"] as? Int } == [0])
        #expect(files.map { $0["name"] as? String } == ["take-001-Kick.wav"])
    }

    @Test func eventsThePageTells() {
        func told(_ event: ControlEvent) -> String? {
            WebRemoteMessages.event(ControlMailbox.NumberedEvent(sequence: 1, event: event)).map { "\($0.kind): \($0.text)" }
        }
        #expect(told(.refused(.arm(track: "Kick"), .takeRecording(.arm(track: "Kick"))))
            == "refused: a take is recording; stop it before arming or disarming a track")
        #expect(told(.stopAsked(take: 3, seconds: 2)) == "asked: Stop take 3?")
        #expect(told(.takeMarked(take: 3, .falseStart)) == "told: Take 3 marked false start")
        #expect(told(.takeMarked(take: 3, nil)) == "told: Take 3 unmarked")
        #expect(told(.trackArmed(track: "Kick", armed: false)) == "told: Kick disarmed")
        #expect(told(.stoppedBeforePortsConnected) == nil, "what the page shows otherwise")
        #expect(WebRemoteMessages.changesTakeLog(.noteSet(take: 1)))
        #expect(!WebRemoteMessages.changesTakeLog(.trackArmed(track: "Kick", armed: true)))
    }
}

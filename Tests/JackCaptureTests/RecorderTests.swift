import Foundation
import Testing
@testable import JackCapture

/// A recorder's input checked before any JACK server is needed: every bad value is a typed error,
/// never a trap. (Against a real server: Tests/IntegrationTests/RecorderTests.swift.)
@Suite("Recorder input validation")
struct RecorderValidationTests {
    static func recorder() throws -> Recorder {
        try Recorder(url: URL(fileURLWithPath: NSTemporaryDirectory() + "/never-\(UUID().uuidString).wav"),
                     settings: RecordingSettings(channelCount: 2),
                     connection: RecorderConnection(clientName: "unit", serverName: "jcap-unit-no-such-server"))
    }

    @Test("a buffer that is not a finite number of seconds above zero", arguments: [Double.nan, .infinity, -.infinity, 0, -4])
    func badBuffer(seconds: Double) {
        #expect(throws: RecorderError.self) {
            try Recorder(url: URL(fileURLWithPath: "/tmp/x.wav"), connection: RecorderConnection(bufferSeconds: seconds))
        }
        do {
            _ = try Recorder(url: URL(fileURLWithPath: "/tmp/x.wav"), connection: RecorderConnection(bufferSeconds: seconds))
        } catch {
            guard case .capture(.badBufferLength) = error else { Issue.record("\(error)"); return }
            #expect(!error.description.contains("\n"))
        }
    }

    @Test("durations that are not finite, or not above zero", arguments: [Double.nan, .infinity, -.infinity, 0, -1, -0.0])
    func badDuration(seconds: Double) throws {
        let recorder = try Self.recorder()
        #expect(throws: RecorderError.self) { try recorder.record(forDuration: seconds) }
        do { try recorder.record(forDuration: seconds) } catch {
            guard case .capture(.badDuration) = error else { Issue.record("\(error)"); return }
        }
        do { try recorder.record(atTime: 10, forDuration: seconds) } catch {
            guard case .capture(.badDuration) = error else { Issue.record("\(error)"); return }
        }
    }

    @Test("start times that are not finite", arguments: [Double.nan, .infinity, -.infinity])
    func badTime(time: Double) throws {
        let recorder = try Self.recorder()
        #expect(throws: RecorderError.self) { try recorder.record(atTime: time) }
        do { try recorder.record(atTime: time) } catch {
            guard case .capture(.badTime) = error else { Issue.record("\(error)"); return }
        }
        do { try recorder.record(atTime: time, forDuration: 1) } catch {
            guard case .capture(.badTime) = error else { Issue.record("\(error)"); return }
        }
    }

    @Test("without a server: a typed error, never a trap, for anything else")
    func noServer() throws {
        let recorder = try Self.recorder()
        #expect(throws: RecorderError.capture(.jack(.noServer(server: "jcap-unit-no-such-server")))) {
            try recorder.record(forDuration: 1e30)
        }
        #expect(throws: RecorderError.capture(.jack(.noServer(server: "jcap-unit-no-such-server")))) {
            try recorder.record(atTime: 1e30)
        }
        #expect(throws: RecorderError.self) { try recorder.record(atFrame: nil, forFrames: 0) }
        #expect(throws: RecorderError.self) { try recorder.record(atFrame: nil, forFrames: -1) }
        #expect(recorder.averagePower(forChannel: -1) == ChannelMeters.floor)
        #expect(recorder.peakPower(forChannel: Int.max) == ChannelMeters.floor)
        recorder.stop()
    }
}
